/**
 * /recover/: a buyer who paid but has no pack (the tab closed, the unlock failed, another device)
 * asks for it again with the skill and the transaction (the wallet purchase sends them here with
 * both filled in). The shop verifies the transfer again and never charges twice; a pack already
 * delivered goes only to its buyer, proven by the license token or a signature of the paying wallet.
 */

import { call, explain, isFailure, Unreachable } from './api';
import { byId, markReady, pendingKey, setStatus } from './dom';
import { walletPicker } from './wallets';
import type { Delivered } from './pack-view';

interface Recovered extends Delivered {
  payment: { txHash: string; payer: string };
}

const form = byId<HTMLFormElement>('form');
const skillInput = byId<HTMLInputElement>('skill');
const txInput = byId<HTMLInputElement>('txHash');
const licenseInput = byId<HTMLInputElement>('license');
const params = new URLSearchParams(location.search);
skillInput.value = params.get('skill') ?? '';
txInput.value = params.get('txHash') ?? params.get('tx') ?? '';
// The wallets found on the page (EIP-6963, else window.ethereum): the person picks the one that paid.
const sign = byId<HTMLButtonElement>('sign');
const chosenWallet = walletPicker(sign.closest('.actions')!, 'Choose the wallet that paid', (w) => (sign.hidden = !w));

/** The spec's backoff while the transfer is not confirmed yet (retry: true). */
const DELAYS = [2, 4, 8];

async function recover(skill: string, txHash: string, proof: Record<string, string> = {}, attempt = 0): Promise<void> {
  setStatus('busy', attempt ? `Not confirmed yet; trying again (attempt ${attempt + 1})…` : 'Verifying the transfer…');
  const license = licenseInput.value.trim();
  let answer;
  try {
    answer = await call<Recovered>('/api/recover', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(license ? { 'x-license': license } : {}), ...proof },
      body: JSON.stringify({ skill, txHash }),
    });
  } catch (e) {
    return setStatus('err', e instanceof Unreachable ? e.message : String(e));
  }
  const body = answer.body;
  if (isFailure(body)) {
    if (body.retry && attempt < DELAYS.length) {
      await new Promise((r) => setTimeout(r, DELAYS[attempt]! * 1000));
      return recover(skill, txHash, proof, attempt + 1);
    }
    const hint =
      body.error_code === 'BUYER_PROOF_REQUIRED' && chosenWallet() ? ' Use "Sign with your wallet" with the wallet that paid.' : '';
    byId('result').hidden = true;
    return setStatus('err', `${body.error_code}: ${explain(body)}${hint}`);
  }
  localStorage.removeItem(pendingKey(skill));
  const { showPack } = await import('./pack-view');
  setStatus('ok', `Recovered ${body.name}: ${Object.keys(body.sealed_pack.files).length} file(s).`);
  byId('summary').textContent = `Transaction ${body.payment.txHash}, paid by ${body.payment.payer}.`;
  await showPack('pack', skill, body);
  byId('result').hidden = false;
}

form.addEventListener('submit', (e) => {
  e.preventDefault();
  void recover(skillInput.value.trim(), txInput.value.trim());
});

sign.addEventListener('click', async () => {
  const wallet = chosenWallet()?.provider;
  if (!wallet || !form.reportValidity()) return;
  const skill = skillInput.value.trim();
  const txHash = txInput.value.trim();
  let header: string;
  try {
    setStatus('busy', 'Waiting for your wallet to sign (a signature proves the wallet, it moves no funds)…');
    const [address] = (await wallet.request({ method: 'eth_requestAccounts' })) as `0x${string}`[];
    const { signInWithXHeader, injectedPersonalSign } = await import('./wallet-siwx');
    header = await signInWithXHeader({
      address: address!,
      baseUrl: location.origin,
      skill,
      txHash,
      sign: injectedPersonalSign(wallet, address!),
    });
  } catch (e) {
    return setStatus('err', `The wallet did not sign: ${e instanceof Error ? e.message : String(e)}`);
  }
  void recover(skill, txHash, { 'sign-in-with-x': header });
});

if (skillInput.value && txInput.value) void recover(skillInput.value.trim(), txInput.value.trim());
markReady();
