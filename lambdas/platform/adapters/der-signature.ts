/**
 * ECDSA signatures as KMS answers them: DER (a SEQUENCE of the INTEGERs r and s). The agent
 * card's signer (JWS) and the relayer's account (Ethereum) both need the fixed-width r‖s form.
 */

/** r‖s, each left-padded to `size` bytes (RFC 7518 §3.4's form), from a DER ECDSA signature. */
export function derToJose(der: Uint8Array, size = 32): Uint8Array {
  const bytes = Buffer.from(der);
  let offset = 2;
  if (bytes[0] !== 0x30) throw new Error('not a DER sequence');
  if ((bytes[1]! & 0x80) !== 0) offset = 2 + (bytes[1]! & 0x7f);
  const readInt = (): Buffer => {
    if (bytes[offset] !== 0x02) throw new Error('not a DER integer');
    const len = bytes[offset + 1]!;
    const value = bytes.subarray(offset + 2, offset + 2 + len);
    offset += 2 + len;
    const trimmed = value[0] === 0 ? value.subarray(1) : value;
    if (trimmed.length > size) throw new Error('integer too long');
    return Buffer.concat([Buffer.alloc(size - trimmed.length), trimmed]);
  };
  return Buffer.concat([readInt(), readInt()]);
}

/**
 * The DER form (a SEQUENCE of the INTEGERs r and s, each minimal and positive) of an r‖s
 * signature: what Sigstore's bundles and X.509 tools expect of an ECDSA signature.
 */
export function joseToDer(joseSignature: Uint8Array): Uint8Array {
  const bytes = Buffer.from(joseSignature);
  if (bytes.length === 0 || bytes.length % 2 !== 0) throw new Error('not an r||s signature');
  const half = bytes.length / 2;
  const integer = (value: Buffer): Buffer => {
    let v = value;
    while (v.length > 1 && v[0] === 0 && (v[1]! & 0x80) === 0) v = v.subarray(1);
    if ((v[0]! & 0x80) !== 0) v = Buffer.concat([Buffer.from([0]), v]);
    return Buffer.concat([Buffer.from([0x02, v.length]), v]);
  };
  const body = Buffer.concat([integer(bytes.subarray(0, half)), integer(bytes.subarray(half))]);
  if (body.length > 0x7f) throw new Error('signature too long for a short-form DER length');
  return Buffer.concat([Buffer.from([0x30, body.length]), body]);
}
