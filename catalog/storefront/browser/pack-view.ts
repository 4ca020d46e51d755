/**
 * A delivered pack on screen: every file (readable, downloadable one by one or as one zip), the
 * seal computed in the browser and compared with the service's, and the license token to keep.
 * Loaded on first use, with fflate (a small, well-kept zip writer) inside its chunk.
 */
import { strToU8, zipSync } from 'fflate';
import { links } from '../../../lambdas/contract/links';
import { byId, download, el } from './dom';

/** The parts of an unlock answer (POST /api/pay, 200) a person needs. */
export interface Delivered {
  skill_id?: string;
  name: string;
  seal: string;
  sealed_pack: { files: Record<string, string> };
  license?: { token: string };
}

const hex = (bytes: ArrayBuffer): string => Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, '0')).join('');
const sha256 = async (text: string): Promise<string> => hex(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));

/** Byte order of UTF-8 paths, as `LC_ALL=C sort` orders them (the seal's rule). */
function byteOrder(a: string, b: string): number {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

/** The pack seal (lambdas/contract/pack-seal.ts): sha256 over "<sha256(file)>  <path>\n" for each file in byte order of path. */
export async function packSealOf(files: Record<string, string>): Promise<string> {
  let lines = '';
  for (const path of Object.keys(files).sort(byteOrder)) lines += `${await sha256(files[path]!)}  ${path}\n`;
  return sha256(lines);
}

/** A link to the buyer's purchases page, where a license gets the pack again. */
export const purchasesLink = (text: string): HTMLAnchorElement => el('a', { href: links('').purchases_page }, text);

/**
 * The license, to keep: one sentence on what it is for (`note`, or the wallet purchase's), the
 * token in a read-only field, a Copy button and a Download button (a .txt with the license and
 * the skill, for a person to file away).
 */
function licenseView(skill: string, name: string, token: string, note?: (Node | string)[]): Node[] {
  const purchases = links('').purchases_page;
  const field = el('textarea', { id: 'license', readonly: '', 'aria-label': 'License token', rows: '4' });
  field.value = token;
  const copy = el('button', { type: 'button', id: 'copy-license', class: 'secondary' }, 'Copy the license');
  copy.addEventListener('click', () => {
    // Without clipboard access (an old browser, a refused permission) the text is selected for the person to copy.
    const copied = navigator.clipboard?.writeText(token) ?? Promise.reject(new Error('no clipboard'));
    void copied.then(
      () => (copy.textContent = 'Copied'),
      () => field.select(),
    );
  });
  const save = el('button', { type: 'button', id: 'download-license', class: 'secondary' }, 'Download the license (.txt)');
  save.addEventListener('click', () => {
    const text =
      `Your license for ${name} (${skill}), Agent Skill Marketplace\n\n` +
      `Skill page: ${location.origin}/skills/${skill}/\n` +
      `Get the pack again, with no new payment: ${location.origin}${purchases} (paste this license there)\n\n` +
      `License:\n${token}\n\n` +
      'Keep it private: whoever has the license can download the pack.\n';
    download(`${skill}-license.txt`, text, 'text/plain');
  });
  return [
    el('h3', {}, 'Your license'),
    el(
      'p',
      { class: 'note', id: 'license-note' },
      ...(note ?? [
        'Keep this license: it downloads this pack again at any time with no new payment, on ',
        purchasesLink('your purchases page'),
        '.',
      ]),
    ),
    field,
    el('p', { class: 'actions' }, copy, save),
  ];
}

/** Renders the pack into the element with id `into`; `licenseNote`: the sentence above the license, if not the wallet purchase's. */
export async function showPack(into: string, skill: string, body: Delivered, licenseNote?: (Node | string)[]): Promise<void> {
  const files = body.sealed_pack.files;
  const computed = await packSealOf(files);
  const verified = computed === body.seal;
  const seal = el('p', { id: 'seal', 'data-verified': String(verified) });
  seal.textContent = verified
    ? `Seal verified in this browser: ${computed}`
    : `Seal MISMATCH: computed ${computed}, the shop says ${body.seal}. Do not use these files; recover the pack again.`;

  const zip = el('button', { type: 'button', id: 'download-zip' }, 'Download all files (.zip)');
  zip.addEventListener('click', () => {
    const archive = zipSync(Object.fromEntries(Object.entries(files).map(([p, text]) => [`${skill}/${p}`, strToU8(text)])));
    download(`${skill}.zip`, archive, 'application/zip');
  });

  const parts: Node[] = [seal, el('p', {}, zip)];
  if (body.license) parts.push(...licenseView(skill, body.name, body.license.token, licenseNote));
  parts.push(el('h3', {}, `Files (${Object.keys(files).length})`));
  for (const [path, text] of Object.entries(files)) {
    const button = el('button', { type: 'button', class: 'secondary', 'data-path': path }, 'Download');
    button.addEventListener('click', () => download(path.split('/').pop()!, text, 'text/plain'));
    parts.push(el('section', { class: 'file' }, el('header', {}, el('code', {}, path), button), el('pre', { tabindex: '0' }, text)));
  }
  byId(into).replaceChildren(...parts);
  byId(into).hidden = false;
}
