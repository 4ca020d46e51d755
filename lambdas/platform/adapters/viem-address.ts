import { getAddress, isAddress } from 'viem';
import type { AddressCodec } from '../../contract/settings';

/** EIP-55 checks with viem: a mixed-case address with a wrong checksum is most likely a typo in a money address. */
export const viemAddressCodec: AddressCodec = {
  isValid: (value) => isAddress(value, { strict: true }),
  checksum: (value) => getAddress(value),
};
