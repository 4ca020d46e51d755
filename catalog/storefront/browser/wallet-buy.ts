/**
 * "Pay with wallet": the purchase a person makes with a browser wallet, through the same API an
 * agent uses. viem over the injected provider (`custom(window.ethereum)`): connect, switch to (or
 * add) Base, read the live 402 challenge (amount, receiver and token come from the shop, never
 * from this page), check the balances, send the exact amount, wait for the receipt, prove the
 * wallet with a sign-in-with-x signature, POST the proof and show the pack. A buyer who chose
 * "Paid when delivered" signs x402's auth-capture authorization instead (wallet-authorization.ts):
 * the price waits in Base's public escrow contract until the pack is delivered. Every failure a
 * buyer can meet ends in a plain sentence; a buyer who paid and got nothing lands on /recover/.
 * Loaded on the first click, so a page that is only read never downloads viem.
 */
import { createClient, custom, erc20Abi, formatEther, formatUnits, type Address, type Client, type EIP1193Provider, type Hash } from 'viem';
// viem's actions one by one, not its decorated clients: only what this purchase calls is bundled.
import {
  addChain,
  estimateContractGas,
  getBalance,
  getChainId,
  getGasPrice,
  readContract,
  requestAddresses,
  signMessage,
  switchChain,
  waitForTransactionReceipt,
  writeContract,
} from 'viem/actions';
import { base } from 'viem/chains';
import { call, explain, isFailure, Unreachable } from './api';
import { byId, el, pendingKey, recoverUrl, setStatus, type InjectedWallet } from './dom';
import { showPack, type Delivered } from './pack-view';
import { injectedPersonalSign, signInWithXHeader } from './wallet-siwx';
import type * as X402ClientModuleNs from './wallet-authorization';

type X402ClientModule = typeof X402ClientModuleNs;

/** The URL of the x402 client, a file built apart (assets.ts); esbuild's `define` writes it in. */
declare const X402_CLIENT_MODULE: string;

type Step = 'sent' | 'included' | 'confirmed' | 'unlocked';

/** One accepted way to pay, from the 402 challenge (`accepts[]`). */
interface Accept {
  payTo: Address;
  /** The token's symbol (`asset` is its contract, as x402 v1 has it). */
  symbol: string;
  assetContract: Address;
  maxAmountRequired: string;
  decimals: number;
  resource: string;
}
interface Challenge {
  error_code: 'PAYMENT_REQUIRED';
  accepts: Accept[];
}

/** A sentence for the person, and what to do next. */
class Stop extends Error {}

function progress(now: Step | undefined, done: readonly Step[]): void {
  const steps = byId('steps');
  steps.hidden = false;
  for (const li of Array.from(steps.children) as HTMLElement[]) {
    const step = li.dataset['step'] as Step;
    li.className = done.includes(step) ? 'done' : step === now ? 'now' : '';
    if (step === now) li.setAttribute('aria-current', 'step');
    else li.removeAttribute('aria-current');
  }
}

/** The JSON-RPC error code somewhere in viem's error chain (4001 rejected, 4902 unknown chain, -32002 request pending). */
function rpcCode(e: unknown): number | undefined {
  for (let x = e as { code?: unknown; cause?: unknown } | undefined, depth = 0; x && depth < 8; x = x.cause as typeof x, depth++) {
    if (typeof x.code === 'number') return x.code;
  }
  return undefined;
}
const says = (e: unknown, text: RegExp): boolean => text.test(String((e as { message?: unknown })?.message ?? e));

const declined = (e: unknown): boolean => rpcCode(e) === 4001 || says(e, /user (rejected|denied)/i);

/** What the person does next, the end of most sentences. */
const AGAIN = 'press "Pay with wallet" again';

/** The wallet's own words for a failure, without a closing full stop (it goes inside a sentence). */
const walletWords = (e: unknown): string =>
  String((e as { shortMessage?: unknown })?.shortMessage ?? (e as Error)?.message ?? e)
    .split('\n')[0]!
    .replace(/[.\s]+$/, '');

/**
 * A wallet failure as one sentence that says what happened and what to do next (`ifDeclined`:
 * the sentence when the person said no in the wallet).
 */
function walletSentence(
  e: unknown,
  doing: string,
  ifDeclined = `You declined ${doing} in your wallet, so nothing was sent: ${AGAIN} when you are ready.`,
): string {
  if (e instanceof Stop) return e.message;
  if (declined(e)) return ifDeclined;
  if (rpcCode(e) === -32002) return `Your wallet already has a request waiting: open the wallet, answer it, then ${AGAIN}.`;
  if (says(e, /insufficient funds/i))
    return `Your wallet does not hold enough ETH on Base for the network fee (gas): add a little ETH on Base, then ${AGAIN}.`;
  return `Your wallet could not finish ${doing} (${walletWords(e)}): ${AGAIN}, or reload the page if it happens again.`;
}

/** Shows why the purchase stopped; false: nothing was delivered. */
const stop = (text: string): false => {
  setStatus('err', text);
  return false;
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Whether a PAYMENT-REQUIRED header (base64 JSON, x402 v2) offers x402's auth-capture scheme, the escrow. */
function offersEscrow(header: string | null): boolean {
  try {
    return (JSON.parse(atob(header ?? '')) as { accepts: { scheme: string }[] }).accepts.some((a) => a.scheme === 'auth-capture');
  } catch {
    return false;
  }
}

/**
 * Buys `skill` with the injected wallet, by escrow ("Paid when delivered") when `escrow` is true;
 * the page's #status, #steps and #pack show how it goes. True once the pack is shown.
 */
export async function buyWithWallet(skill: string, injected: InjectedWallet, escrow = false): Promise<boolean> {
  const client = createClient({ chain: base, transport: custom(injected as EIP1193Provider), pollingInterval: 1_000 });
  byId('pack').hidden = true;
  progress(undefined, []);

  // 1. Connect, and be on Base.
  let account: Address;
  let doing = 'the connection';
  try {
    setStatus('busy', 'Connecting to your wallet…');
    [account] = (await requestAddresses(client)) as [Address];
    if (!account) throw new Stop(`Your wallet shared no account: unlock it, then ${AGAIN}.`);
    if ((await getChainId(client)) !== base.id) {
      // wallet_switchEthereumChain; a wallet that does not know Base yet (4902) is asked to add it first.
      setStatus('busy', 'Asking your wallet to switch to Base…');
      doing = 'the switch to Base';
      try {
        await switchChain(client, { id: base.id });
      } catch (e) {
        if (rpcCode(e) !== 4902) throw e;
        await addChain(client, { chain: base });
        await switchChain(client, { id: base.id });
      }
      if ((await getChainId(client)) !== base.id)
        throw new Stop(`Your wallet is still on another network: switch it to the Base network, then ${AGAIN}.`);
    }
  } catch (e) {
    return stop(
      walletSentence(
        e,
        doing,
        doing === 'the connection'
          ? `You declined the connection in your wallet, so nothing was sent: ${AGAIN} when you are ready.`
          : `Your wallet refused to switch to the Base network, the only one this shop takes USDC on, so nothing was sent: ` +
              `allow the switch or switch it to Base yourself, then ${AGAIN}.`,
      ),
    );
  }

  // An owner is never charged again: a wallet that already has the skill signs in and downloads it.
  const owned = await ownerDownload(skill, injected, account);
  if (owned !== undefined) return owned;

  // 2. The live price, receiver and token: the 402 challenge.
  let challenge: Challenge;
  try {
    setStatus('busy', 'Reading the price from the shop…');
    const answer = await call<Challenge>(`/api/pay?skill=${encodeURIComponent(skill)}`);
    if (answer.status !== 402 || !isFailure(answer.body) || answer.body.error_code !== 'PAYMENT_REQUIRED')
      throw new Stop(isFailure(answer.body) ? explain(answer.body) : `The shop answered ${answer.status} instead of a price.`);
    if (escrow && !offersEscrow(answer.headers.get('payment-required')))
      throw new Stop(
        `This shop does not take "Paid when delivered" payments right now, so nothing was paid: choose "Pay now", then ${AGAIN}.`,
      );
    challenge = answer.body as unknown as Challenge;
  } catch (e) {
    return stop(e instanceof Error ? e.message : String(e));
  }

  // 3. Which token to pay with, and enough of it and of ETH for gas (the escrow takes USDC, and needs no ETH).
  let accept: Accept | undefined;
  let gasless = escrow;
  try {
    setStatus('busy', 'Checking your balances on Base…');
    const offered = escrow ? challenge.accepts.filter((a) => a.symbol === 'USDC') : challenge.accepts;
    const balances = await Promise.all(
      offered.map((a) => readContract(client, { address: a.assetContract, abi: erc20Abi, functionName: 'balanceOf', args: [account] })),
    );
    accept = offered.find((a, i) => balances[i]! >= BigInt(a.maxAmountRequired));
    if (!accept) {
      const first = offered[0]!;
      throw new Stop(
        `This skill costs ${formatUnits(BigInt(first.maxAmountRequired), first.decimals)} ${first.symbol} and your wallet ${account} holds ` +
          `${formatUnits(balances[0] ?? 0n, first.decimals)} ${first.symbol} on Base: add ` +
          `${formatUnits(BigInt(first.maxAmountRequired) - (balances[0] ?? 0n), first.decimals)} ${first.symbol} or more on Base to this wallet, then ${AGAIN}.`,
      );
    }
    if (!escrow) {
      const request = {
        account,
        address: accept.assetContract,
        abi: erc20Abi,
        functionName: 'transfer',
        args: [accept.payTo, BigInt(accept.maxAmountRequired)],
      } as const;
      // No ETH for the fee: pay the x402 v2 way instead (a signed authorization; the shop pays the fee), in USDC only.
      const eth = await getBalance(client, { address: account });
      let fee: bigint | undefined;
      try {
        const [gas, price] = await Promise.all([estimateContractGas(client, request), getGasPrice(client)]);
        fee = gas * price;
      } catch (e) {
        if (!says(e, /insufficient funds/i)) throw e;
      }
      gasless = fee === undefined || eth < fee;
      if (gasless && accept.symbol !== 'USDC')
        throw new Stop(
          `${fee === undefined ? 'Your wallet' : `The network fee is about ${formatEther(fee)} ETH and your wallet`} holds ${formatEther(eth)} ETH on Base, ` +
            `not enough for the fee of a ${accept.symbol} transfer: add a little ETH on Base for gas, or USDC (which pays here without ETH), then ${AGAIN}.`,
        );
    }
  } catch (e) {
    return stop(walletSentence(e, 'the balance check'));
  }
  if (gasless) return payBySignature(skill, client, account, accept, escrow);

  // 4. Send exactly the challenge's amount to its payTo.
  let hash: Hash;
  const amount = `${formatUnits(BigInt(accept.maxAmountRequired), accept.decimals)} ${accept.symbol}`;
  try {
    setStatus('busy', `Confirm the transfer of ${amount} in your wallet…`);
    hash = await writeContract(client, {
      account,
      chain: base,
      address: accept.assetContract,
      abi: erc20Abi,
      functionName: 'transfer',
      args: [accept.payTo, BigInt(accept.maxAmountRequired)],
    });
  } catch (e) {
    return stop(walletSentence(e, 'the transfer'));
  }
  localStorage.setItem(pendingKey(skill), hash);
  const toRecover = (why: string): false => sendToRecovery(skill, hash, why);
  progress('included', ['sent']);
  setStatus('busy', `Sent: transaction ${hash}. Waiting for Base to include it…`);

  // 5. Included.
  try {
    const receipt = await waitForTransactionReceipt(client, { hash, timeout: 180_000 });
    if (receipt.status !== 'success') {
      localStorage.removeItem(pendingKey(skill));
      return stop(
        `The transfer failed on chain (transaction ${hash} reverted), so no ${accept.symbol} left your wallet but the network fee: ${AGAIN} to try again.`,
      );
    }
    progress('confirmed', ['sent', 'included']);
  } catch {
    return toRecover(`Base has not included transaction ${hash} yet.`);
  }

  // 6. Prove the wallet (a signature moves no funds), then claim; too few confirmations: wait and ask again.
  const headers: Record<string, string> = { 'x-payment': JSON.stringify({ txHash: hash, skill }) };
  try {
    setStatus('busy', 'Sign the message in your wallet to prove you paid (this moves no funds)…');
    headers['sign-in-with-x'] = await signInWithXHeader({
      address: account,
      baseUrl: new URL(accept.resource).origin,
      skill,
      txHash: hash,
      sign: (message) => signMessage(client, { account, message }),
    });
  } catch (e) {
    if (!declined(e)) return toRecover(`Your wallet could not sign the claim (${walletWords(e)}).`);
    // Declined: the shop still delivers the first claim to this browser's connection.
  }
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    let answer;
    try {
      answer = await call<Delivered>('/api/pay', { method: 'POST', headers });
    } catch (e) {
      return toRecover(e instanceof Unreachable ? e.message : String(e));
    }
    if (answer.status === 200 && !isFailure(answer.body)) return delivered(skill, answer.body);
    const failure = isFailure(answer.body) ? answer.body : undefined;
    if (failure?.retry && Date.now() - started < 120_000) {
      setStatus('busy', `Waiting for confirmations on Base: ${failure.message}`);
      await sleep(Math.min(2_000 * (attempt + 1), 8_000));
      continue;
    }
    return toRecover(failure ? explain(failure) : `The shop answered ${answer.status}.`);
  }
}

interface AccessAnswer {
  granted: boolean;
  via: string;
  since?: string;
  plan?: string;
}

/**
 * GET /api/access for the connected wallet: one that already has the skill (a purchase, a covering
 * subscription, an earlier meter draw) signs in (SIGN-IN-WITH-X, no funds move) and gets the pack
 * again. Undefined when it has no access, or only a meter that would charge: then it pays.
 */
async function ownerDownload(skill: string, injected: InjectedWallet, account: Address): Promise<boolean | undefined> {
  let access: AccessAnswer;
  try {
    setStatus('busy', 'Checking whether this wallet already has the skill…');
    const answer = await call<AccessAnswer>(`/api/access?wallet=${account}&skill=${encodeURIComponent(skill)}`);
    if (isFailure(answer.body) || answer.body.granted !== true || answer.body.via === 'meter') return undefined;
    access = answer.body;
  } catch {
    // Not known: the purchase goes on as usual, and the shop itself never charges an owner's signed payment.
    return undefined;
  }
  const how = access.via === 'subscription' ? `your subscription (${access.plan ?? 'a plan'})` : 'an earlier purchase';
  try {
    setStatus('busy', `This wallet already has this skill by ${how}: sign in with your wallet to download it again (nothing is paid)…`);
    const header = await signInWithXHeader({
      address: account,
      baseUrl: location.origin,
      skill,
      sign: injectedPersonalSign(injected, account),
    });
    const answer = await call<Delivered>('/api/pay', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'sign-in-with-x': header },
      body: JSON.stringify({ skill }),
    });
    if (isFailure(answer.body)) return stop(explain(answer.body));
    progress(undefined, ['unlocked']);
    setStatus('ok', `You already own ${answer.body.name}: downloaded again with your wallet's signature, nothing paid. `);
    await showPack('pack', skill, answer.body);
    return true;
  } catch (e) {
    return stop(
      walletSentence(
        e,
        'the sign-in',
        'You declined the sign-in in your wallet, so nothing was downloaded and nothing paid: press the button again and sign ' +
          'the message (it moves no funds) to download the pack.',
      ),
    );
  }
}

/** The pack is the buyer's: every step done, the files, the seal and the license on screen. */
async function delivered(skill: string, body: Delivered): Promise<true> {
  localStorage.removeItem(pendingKey(skill));
  progress(undefined, ['sent', 'included', 'confirmed', 'unlocked']);
  setStatus(
    'ok',
    `Unlocked ${body.name}: ${Object.keys(body.sealed_pack.files).length} file(s). `,
    el('a', { href: `/proof/?skill=${skill}` }, 'See it on the proof ledger'),
  );
  await showPack('pack', skill, body);
  return true;
}

/** Paid but not delivered: say so, then take the buyer to /recover/ with the skill and transaction filled in. */
function sendToRecovery(skill: string, txHash: Hash, why: string): false {
  setTimeout(() => location.assign(recoverUrl(skill, txHash)), 2_500);
  return stop(`${why} Your payment is safe on chain: taking you to the recovery page…`);
}

/**
 * The purchase as one signed EIP-3009 authorization the shop settles (wallet-authorization.ts,
 * loaded now by its URL): for want of ETH for gas, or by escrow ("Paid when delivered").
 */
async function payBySignature(skill: string, client: Client, account: Address, accept: Accept, escrow: boolean): Promise<boolean> {
  const amount = `${formatUnits(BigInt(accept.maxAmountRequired), accept.decimals)} ${accept.symbol}`;
  setStatus(
    'busy',
    escrow
      ? `Paid when delivered: sign the authorization of ${amount} in your wallet (no transaction, no ETH needed); the shop places it ` +
          "in Base's public escrow contract, and it is released to the shop only once your pack is delivered…"
      : `Your wallet holds no ETH on Base for the network fee, so it pays by signature instead: sign the authorization of ${amount} ` +
          'in your wallet (no transaction); the shop submits the transfer and pays the fee…',
  );
  const { payByAuthorization } = (await import(X402_CLIENT_MODULE)) as X402ClientModule;
  let result;
  try {
    const price = { asset: accept.assetContract, amount: accept.maxAmountRequired };
    result = await payByAuthorization(skill, client, account, price, escrow, () => {
      progress('included', ['sent']);
      setStatus(
        'busy',
        escrow
          ? 'Signed. The shop is placing your payment in the escrow and delivering your pack; the escrow pays the shop only then…'
          : 'Signed. The shop is submitting your transfer to Base…',
      );
    });
  } catch (e) {
    return stop(
      walletSentence(
        e,
        'the payment authorization',
        `You declined the payment authorization in your wallet, so nothing was paid: ${AGAIN} when you are ready.`,
      ),
    );
  }
  if (result.status === 200 && !isFailure(result.body)) return delivered(skill, result.body as Delivered);
  const why = isFailure(result.body) ? explain(result.body) : `The shop answered ${result.status}.`;
  if (!result.transaction) return stop(why);
  localStorage.setItem(pendingKey(skill), result.transaction);
  return sendToRecovery(skill, result.transaction, why);
}
