/**
 * GET/POST /api/mandates and the X-AP2-MANDATE check of POST /api/pay. A mandate is created
 * and revoked only by its wallet (EIP-712); a purchase under it is made by its agent (`cnf`) or
 * its wallet, paid by its wallet, within its constraints, and counted once with one
 * conditional update, so parallel purchases cannot overspend it.
 */
import * as z from 'zod/mini';
import { safeParse } from '../platform/validation';
import { AppError, invalidRequest, notFound } from '../platform/errors';
import { json, readJsonObject, type ApiRequest, type ApiResponse } from '../platform/http';
import { parseJsonHeaderValue } from '../platform/json';
import { PAYMENT_ERRORS, type PurchasePolicy } from '../payments';
import { MANDATE_ID, MandateSchema, mandateId, mandateProblem, mandateText, mandateView, spendLimits } from './core/mandate';
import type { AccessPorts, MandateDocument, MandateRecord } from './ports';
import { walletParam } from './params';
import { parseBody, requireWalletAction, SIGNED_FIELDS } from './wallet-action';

const EXAMPLE =
  'See docs/ACCESS.md: {"action":"create","mandate":{…},"wallet","nonce","deadline","signature"} or {"action":"revoke","mandate_id",…}.';

const CreateSchema = z.strictObject({ ...SIGNED_FIELDS, action: z.literal('create'), mandate: MandateSchema });
const RevokeSchema = z.strictObject({
  ...SIGNED_FIELDS,
  action: z.literal('revoke'),
  mandate_id: z.string().check(z.regex(MANDATE_ID, 'must be mnd_ and 32 hex digits')),
});
/** The body of POST /api/mandates. */
export const PostSchema = z.discriminatedUnion('action', [CreateSchema, RevokeSchema]);

/**
 * A wallet's mandates, with status and spend, newest first: the one document GET /api/mandates,
 * MCP's list_mandates and A2A answer, so the shape is defined here only.
 */
export async function mandatesDocument(wallet: string, ports: Pick<AccessPorts, 'mandates'>) {
  const records = await ports.mandates.list(wallet);
  return {
    ok: true,
    wallet,
    count: records.length,
    mandates: records.map(mandateView),
    honesty: 'Spend is summed from the transfers counted against each mandate; nothing is estimated.',
  };
}

/** GET /api/mandates?wallet= (alias address=): the wallet's mandates, with status and spend, newest first. */
export async function getMandates(req: ApiRequest, ports: AccessPorts): Promise<ApiResponse> {
  return json(200, await mandatesDocument(walletParam(req), ports));
}

/** Creates a mandate its wallet signed; the same signed mandate twice is one mandate. */
async function createMandate(
  body: z.infer<typeof CreateSchema>,
  ports: AccessPorts,
  baseUrl: string,
): Promise<{ created: boolean; record: MandateRecord }> {
  const mandate = body.mandate as MandateDocument;
  if (mandate.wallet.toLowerCase() !== body.wallet.toLowerCase()) {
    throw invalidRequest(
      'mandate.wallet',
      '`mandate.wallet` must be the signing `wallet`: a wallet grants mandates over its own money only.',
      EXAMPLE,
    );
  }
  const id = mandateId(mandate);
  const existing = await ports.mandates.get(id);
  if (existing) return { created: false, record: existing };
  await requireWalletAction('CreateMandate', body, { mandate: mandateText(mandate) }, ports, baseUrl);
  return ports.mandates.create({
    id,
    mandate,
    signature: body.signature,
    status: 'active',
    createdAt: ports.now().toISOString(),
    spent: 0n,
    occurrences: 0,
    transfers: [],
  });
}

/** POST /api/mandates: `create` or `revoke`, each signed by the mandate's wallet. */
export async function postMandates(req: ApiRequest, ports: AccessPorts): Promise<ApiResponse> {
  const body = parseBody(PostSchema, readJsonObject(req) ?? {}, EXAMPLE);
  if (body.action === 'create') {
    const { created, record } = await createMandate(body, ports, req.baseUrl);
    return json(200, {
      ok: true,
      created,
      mandate: mandateView(record),
      use: 'Send X-AP2-MANDATE: <id> with POST /api/pay, signed by the agent (cnf).',
    });
  }
  await requireWalletAction('RevokeMandate', body, { mandateId: body.mandate_id }, ports, req.baseUrl);
  const outcome = await ports.mandates.revoke(body.mandate_id, body.wallet, ports.now());
  if (outcome === 'not_found') {
    // Another wallet's mandate answers exactly as a missing one: nobody learns of it, nobody changes it.
    throw notFound(`No mandate ${body.mandate_id} of wallet ${body.wallet}.`, 'GET /api/mandates?wallet=<your wallet> lists yours.');
  }
  const record = (await ports.mandates.get(body.mandate_id))!;
  return json(200, {
    ok: true,
    revoked: outcome === 'revoked',
    already_revoked: outcome === 'already_revoked',
    mandate: mandateView(record),
  });
}

const rejected = (message: string): AppError => PAYMENT_ERRORS.AP2_MANDATE_REJECTED({ message: `AP2 mandate rejected: ${message}.` });

/** The mandate X-AP2-MANDATE names: its id, or the signed create body itself (JSON or base64 JSON), stored on first use. */
async function mandateFromHeader(value: string, ports: AccessPorts, baseUrl: string): Promise<MandateRecord> {
  const raw = value.trim();
  if (MANDATE_ID.test(raw)) {
    const record = await ports.mandates.get(raw);
    if (!record) throw rejected(`no mandate ${raw}`);
    return record;
  }
  let parsed: unknown;
  try {
    parsed = parseJsonHeaderValue(raw, { maxBytes: 16 * 1024, maxDepth: 8 }, 'X-AP2-MANDATE');
  } catch {
    throw rejected('X-AP2-MANDATE is neither a mandate id (mnd_…) nor a signed mandate (JSON, or base64 JSON)');
  }
  const body = safeParse(CreateSchema, { action: 'create', ...(parsed as object) });
  if (!body.success) {
    const issue = body.error.issues[0]!;
    throw rejected(`${issue.path.join('.') || 'mandate'}: ${issue.message}`);
  }
  try {
    return (await createMandate(body.data, ports, baseUrl)).record;
  } catch (e) {
    if (e instanceof AppError && e.status < 500) throw rejected(e.message);
    throw e;
  }
}

/**
 * The purchase policy of an X-AP2-MANDATE header for POST /api/pay: who may claim under it
 * (its agent or its wallet, by signature) and the constraints and spend every purchase must
 * pass. Any failure is 403 AP2_MANDATE_REJECTED and nothing is claimed or unlocked.
 */
export async function mandatePolicy(
  value: string,
  skill: string | undefined,
  ports: AccessPorts,
  baseUrl: string,
): Promise<PurchasePolicy> {
  const record = await mandateFromHeader(value, ports, baseUrl);
  const doc = record.mandate;
  return {
    payerFor(signer) {
      if (signer === undefined) {
        throw rejected(`a purchase under ${record.id} must be signed by its agent ${doc.cnf.address} (header SIGN-IN-WITH-X)`);
      }
      const lower = signer.toLowerCase();
      if (lower !== doc.cnf.address.toLowerCase() && lower !== doc.wallet.toLowerCase()) {
        throw rejected(`${signer} is neither the agent (cnf) nor the wallet of ${record.id}`);
      }
      // The agent acts for the wallet that granted the mandate: the claim is the wallet's.
      return doc.wallet;
    },
    async admit(purchase) {
      const entry = ports.catalog.get(purchase.product.id);
      if (purchase.product.kind !== 'unlock' || !entry || entry.id !== skill)
        return { ok: false, message: 'a mandate covers skill purchases only' };
      const current = (await ports.mandates.get(record.id)) ?? record;
      const problem = mandateProblem(current, {
        txHash: purchase.txHash,
        payer: purchase.payer,
        amount: purchase.amount,
        skill: entry,
        treasury: ports.payments.config.treasury!,
        chain: ports.payments.config.network.caip2,
        now: ports.now(),
      });
      if (problem) return { ok: false, message: `AP2 mandate rejected: ${problem}` };
      const { budget, maxOccurrences, minSecondsBetween } = spendLimits(doc);
      const spend = await ports.mandates.spend(
        record.id,
        { txHash: purchase.txHash.toLowerCase(), amount: purchase.amount },
        {
          ...(budget !== undefined ? { budget } : {}),
          ...(maxOccurrences !== undefined ? { maxOccurrences } : {}),
          minSecondsBetween,
          now: ports.now(),
        },
      );
      if (spend.kind !== 'refused') return { ok: true };
      const why = {
        not_found: 'the mandate is gone',
        revoked: 'the mandate was revoked',
        budget: 'payment.budget is spent (another purchase took the rest)',
        occurrences: 'payment.agent_recurrence: no occurrences left',
        frequency: 'payment.agent_recurrence: used again too soon for its frequency',
      }[spend.reason];
      return { ok: false, message: `AP2 mandate rejected: ${why}` };
    },
  };
}
