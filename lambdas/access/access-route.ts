/** GET /api/access?wallet=&skill=: the access decision and, when not granted, what to do next. */
import { links } from '../contract/links';
import type { CatalogEntry } from '../contract/catalog-data';

import { formatAtomic } from '../contract/chain';
import { json, type ApiRequest, type ApiResponse } from '../platform/http';
import { covers, decideAccess, type AccessDecision } from './core/decide-access';
import { skillParam, walletParam } from './params';
import type { AccessPorts } from './ports';

/** The next steps that would give the wallet access: pay once, subscribe, or use a meter. */
export function nextSteps(
  decision: AccessDecision,
  skill: CatalogEntry,
  wallet: string,
  ports: Pick<AccessPorts, 'catalog'>,
  baseUrl: string,
) {
  const l = links(baseUrl);
  const plans = ports.catalog.pricing.plans.filter((p) => covers(p, skill));
  return [
    {
      action: 'pay_once',
      price_atomic: skill.x402.amount,
      price_usdc: formatAtomic(BigInt(skill.x402.amount)),
      challenge: l.skill(skill.id).challenge,
      then: 'Transfer the amount, then POST /api/pay with X-PAYMENT {"txHash","skill"}.',
    },
    {
      action: 'subscribe',
      plans: plans.map((p) => ({
        id: p.id,
        amount_atomic: p.amount,
        amount_usdc: formatAtomic(BigInt(p.amount)),
        period_days: p.period_seconds / 86_400,
      })),
      how: `GET ${l.subscribe} for the challenge; transfer; POST ${l.subscribe} {"action":"start","plan","txHash"}.`,
    },
    decision.via === 'meter'
      ? { action: 'draw', how: `POST ${l.meter} {"action":"draw","skill":"${skill.id}",…} signed by the wallet (EIP-712 DrawMeter).` }
      : {
          action: 'top_up_meter',
          minimum_atomic: ports.catalog.pricing.meterMinTopUp,
          how: `GET ${l.meter_of(wallet)} for the top-up challenge; transfer; POST ${l.meter} {"action":"top_up","txHash"}.`,
        },
  ];
}

/** The decision as the API shows it. */
export function decisionView(
  decision: AccessDecision,
  skill: CatalogEntry,
  wallet: string,
  ports: Pick<AccessPorts, 'catalog'>,
  baseUrl: string,
) {
  const { granted, via, until, ...detail } = decision;
  return {
    ok: true,
    wallet,
    skill: skill.id,
    granted,
    via,
    until,
    ...detail,
    ...(granted && via !== 'meter' ? {} : { next: nextSteps(decision, skill, wallet, ports, baseUrl) }),
    basis: 'Decided from the proof ledger and the access table only (decideAccess); nothing is assumed.',
  };
}

export async function getAccess(req: ApiRequest, ports: AccessPorts): Promise<ApiResponse> {
  const wallet = walletParam(req, ['wallet']);
  const skill = skillParam(req, ports);
  const decision = await decideAccess(wallet, skill, ports.now(), ports);
  return json(200, decisionView(decision, skill, wallet, ports, req.baseUrl));
}
