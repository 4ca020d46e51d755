/**
 * /checkout/success: where Stripe returns a person who paid by card. The pack appears once
 * Stripe's signed webhook has recorded the sale; until then /api/checkout/delivery answers 202
 * with Retry-After and this page asks again by itself (docs/CHECKOUT.md). The Stripe session id
 * in the URL delivers the pack once: the license that delivery gives is kept in this browser
 * (localStorage) and presented when the person comes back; on another browser they paste it.
 * The license is shown with what it is for (getting the pack again on /purchases/), a Copy and a
 * Download button (pack-view.ts).
 */
import { call, explain, isFailure, Unreachable } from './api';
import { byId, licenseKey, markReady, setStatus } from './dom';
import type { Delivered } from './pack-view';

interface Sale extends Delivered {
  skill_id: string;
  payment: { amount_cents: number; currency: string; recorded_at: string };
}

const sessionId = new URLSearchParams(location.search).get('session_id') ?? '';
const form = byId<HTMLFormElement>('license-form');
const input = byId<HTMLTextAreaElement>('license-input');

async function show(body: Sale): Promise<void> {
  // The pack view (and fflate, and the links it names) load only once there is a pack to show.
  const { showPack, purchasesLink } = await import('./pack-view');
  if (body.license) localStorage.setItem(licenseKey(sessionId), body.license.token);
  form.hidden = true;
  setStatus('ok', `Paid: ${body.name}, ${Object.keys(body.sealed_pack.files).length} file(s).`);
  byId('summary').textContent =
    `Card payment of ${(body.payment.amount_cents / 100).toFixed(2)} ${body.payment.currency.toUpperCase()}, recorded ${body.payment.recorded_at}.`;
  // A card buyer has no wallet to sign with: the license is their only way back to the pack.
  await showPack('pack', body.skill_id, body, [
    'Keep this license: it is how you download this pack again, with no new payment, on ',
    purchasesLink('your purchases page'),
    ' from this or any other browser.',
  ]);
  byId('result').hidden = false;
}

async function poll(attempt: number): Promise<void> {
  const license = localStorage.getItem(licenseKey(sessionId));
  let answer;
  try {
    answer = await call<Sale>(
      `/api/checkout/delivery?session_id=${encodeURIComponent(sessionId)}`,
      license ? { headers: { 'x-license': license } } : undefined,
    );
  } catch (e) {
    return setStatus('err', `${e instanceof Unreachable ? e.message : String(e)} Reload this page to try again; your payment is not lost.`);
  }
  if (answer.status === 200 && !isFailure(answer.body)) return show(answer.body);
  if (answer.status === 202) {
    const wait = Math.min(Number(answer.headers.get('retry-after')) || 2, 10);
    setStatus('busy', `Waiting for confirmation of your payment (check ${attempt + 1})… This page updates by itself.`);
    setTimeout(() => void poll(attempt + 1), wait * 1000);
    return;
  }
  const body = answer.body;
  // Delivered before (here or elsewhere): the license that delivery gave shows the pack again.
  if (isFailure(body) && (body.error_code === 'LICENSE_REQUIRED' || body.error_code === 'INVALID_LICENSE')) {
    localStorage.removeItem(licenseKey(sessionId));
    form.hidden = false;
    return setStatus('err', `${explain(body)} Paste it below.`);
  }
  setStatus('err', isFailure(body) ? `${body.error_code}: ${explain(body)}` : `The shop answered ${answer.status}.`);
}

form.addEventListener('submit', (e) => {
  e.preventDefault();
  localStorage.setItem(licenseKey(sessionId), input.value.trim());
  setStatus('busy', 'Checking your license…');
  void poll(0);
});

if (!/^cs_[A-Za-z0-9_]+$/.test(sessionId))
  setStatus('err', 'This page needs the session_id Stripe added to its link. Open the link from your checkout again.');
else void poll(0);
markReady();
