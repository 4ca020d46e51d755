// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title TestSmartWallet
/// @notice A minimal contract wallet for tests: EIP-1271 `isValidSignature` accepts a 65-byte
///         ECDSA signature of the hash by its owner, so the service's checks of contract wallets
///         (sign-in-with-x, and EIP-3009 authorizations the token verifies) can be exercised.
contract TestSmartWallet {
    bytes4 private constant MAGIC = 0x1626ba7e;
    address public immutable owner;

    constructor(address owner_) {
        owner = owner_;
    }

    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        if (signature.length != 65) return 0xffffffff;
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        if (uint256(s) > 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0) return 0xffffffff;
        address signer = ecrecover(hash, v, r, s);
        return signer != address(0) && signer == owner ? MAGIC : bytes4(0xffffffff);
    }
}

/// @title TestWalletFactory
/// @notice Deploys TestSmartWallets at CREATE2 addresses, so a test can sign for a wallet before
///         it exists (ERC-6492: the signature carries this factory call).
contract TestWalletFactory {
    function deploy(address owner, bytes32 salt) external returns (address wallet) {
        wallet = address(new TestSmartWallet{salt: salt}(owner));
    }
}
