// Redis Cluster key slots, computed as the server does.
/** Redis Cluster key slots, computed locally as the server does (CRC16/XMODEM of the hash tag, mod 16384). */

const TABLE = (() => {
  const table = new Uint16Array(256);
  for (let i = 0; i < 256; i++) {
    let crc = i << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? (crc << 1) ^ 0x1021 : crc << 1;
    table[i] = crc & 0xffff;
  }
  return table;
})();

/** CRC16/XMODEM (polynomial 0x1021, initial 0), the checksum Redis Cluster uses. */
export function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) crc = ((crc << 8) ^ TABLE[((crc >> 8) ^ byte) & 0xff]!) & 0xffff;
  return crc;
}

/**
 * The part of a key that Redis Cluster hashes: the text between the first `{` and the next `}`
 * when that is nonempty, else the whole key.
 */
export function hashTagOf(key: string | Uint8Array): Uint8Array {
  const bytes = typeof key === 'string' ? Buffer.from(key) : key;
  const open = bytes.indexOf(0x7b);
  if (open >= 0) {
    const close = bytes.indexOf(0x7d, open + 1);
    if (close > open + 1) return bytes.subarray(open + 1, close);
  }
  return bytes;
}

/** The Cluster slot (0..16383) of a key. */
export function keySlot(key: string | Uint8Array): number {
  return crc16(hashTagOf(key)) % 16384;
}
