/**
 * Entry names: decoding (UTF-8 or CP437, APPNOTE 4.4.4 bit 11 and appendix D)
 * and the check that a name stays inside the archive's root.
 *
 * @module
 */

// ignoreBOM: a leading U+FEFF is part of the name, not a byte order mark to drop.
const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** CP437 code points of bytes 0x80..0xFF, the zip default for names without the UTF-8 flag. */
const CP437_HIGH =
  "ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜ¢£¥₧ƒáíóúñÑªº¿⌐¬½¼¡«»░▒▓│┤╡╢╖╕╣║╗╝╜╛┐└┴┬├─┼╞╟╚╔╩╦╠═╬╧╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀αßΓπΣσµτΦΘΩδ∞φε∩≡±≥≤⌠⌡÷≈°∙·√ⁿ²■\u00a0";

/**
 * Decodes an entry name. Names flagged UTF-8 must be valid UTF-8; unflagged
 * names are read as UTF-8 when valid (what most tools write in practice) and
 * as CP437 otherwise.
 */
export function decodeName(bytes: Uint8Array, utf8Flag: boolean): string | undefined {
  let ascii = true;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] >= 0x80) {
      ascii = false;
      break;
    }
  }
  if (ascii) return String.fromCharCode(...bytes);
  try {
    return UTF8.decode(bytes);
  } catch {
    if (utf8Flag) return undefined;
    let s = "";
    for (const b of bytes) s += b < 0x80 ? String.fromCharCode(b) : CP437_HIGH[b - 0x80];
    return s;
  }
}

/**
 * Why entry `name` cannot be a store key (it is absolute, has a backslash, a
 * drive letter, a NUL or control character, or an empty, `.` or `..` segment),
 * or `undefined` when it is fine. A trailing `/` (a directory entry) is allowed.
 */
export function unsafeNameReason(name: string): string | undefined {
  if (name.length === 0) return "the name is empty";
  if (name.startsWith("/")) return "the name is absolute";
  if (name.includes("\\")) return "the name contains a backslash";
  if (/^[A-Za-z]:/.test(name)) return "the name starts with a drive letter";
  // biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting control characters is the point
  if (/[\u0000-\u001f\u007f]/.test(name)) return "the name contains a control character";
  const body = name.endsWith("/") ? name.slice(0, -1) : name;
  for (const segment of body.split("/")) {
    if (segment === "") return "the name has an empty segment";
    if (segment === "." || segment === "..") return `the name has a "${segment}" segment`;
  }
  return undefined;
}
