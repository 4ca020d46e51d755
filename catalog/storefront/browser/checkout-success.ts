/**
 * /checkout/success: where Stripe returns a person who paid by card. The pack appears once
 * Stripe's signed webhook has recorded the sale; until then /api/checkout/delivery answers 202
 * with Retry-After and this page asks again by itself (docs/CHECKOUT.md).
 */
import { call, explain, isFailure, Unreachable } from './api';
import { byId, markReady, setStatus } from './dom';
import type { Delivered } from './pack-view';

interface Sale extends Delivered {
  skill_id: string;
  payment: { amount_cents: number; currency: string; recorded_at: string };
}

const sessionId = new URLSearchParams(location.search).get('session_id') ?? '';

async function show(body: Sale): Promise<void> {
  const { showPack } = await import('./pack-view');
  setStatus('ok', `Paid: ${body.name}, ${Object.keys(body.sealed_pack.files).length} file(s).`);
  byId('summary').textContent =
    `Card payment of ${(body.payment.amount_cents / 100).toFixed(2)} ${body.payment.currency.toUpperCase()}, recorded ${body.payment.recorded_at}.`;
  await showPack('pack', body.skill_id, body);
  byId('result').hidden = false;
}

async function poll(attempt: number): Promise<void> {
  let answer;
  try {
    answer = await call<Sale>(`/api/checkout/delivery?session_id=${encodeURIComponent(sessionId)}`);
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
  setStatus('err', isFailure(answer.body) ? `${answer.body.error_code}: ${explain(answer.body)}` : `The shop answered ${answer.status}.`);
}

if (!/^cs_[A-Za-z0-9_]+$/.test(sessionId))
  setStatus('err', 'This page needs the session_id Stripe added to its link. Open the link from your checkout again.');
else void poll(0);
markReady();
