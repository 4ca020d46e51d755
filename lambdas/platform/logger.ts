/**
 * The one logger. Powertools writes structured JSON with the request id as correlation id.
 * Bodies and secrets are never passed to it; log level comes from POWERTOOLS_LOG_LEVEL.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import type { Context } from 'aws-lambda';

/** Whether debug sampling is configured: its per-invocation draw must then run on every request. */
const SAMPLING = Number(process.env['POWERTOOLS_LOGGER_SAMPLE_RATE'] ?? '0') > 0;

/** What one invocation's log lines carry, kept until a line is written. */
interface Invocation {
  context: Context;
  correlationId: string;
  coldStart: boolean;
}

/**
 * Powertools' Logger, told of each API invocation by {@link InvocationLogger.bindInvocation}
 * and applying it only when the invocation writes a line: most requests write none. What a line
 * carries is what Powertools' `injectLambdaContext` middleware with `resetKeys` gives it (the
 * Lambda context, cold start, the correlation id, no temporary key of an earlier invocation);
 * that middleware instead rewrites the logger's invocation-scoped state on every request, each
 * access reading `process.env`: 17 µs of user CPU a request on the layer bench (HP against HM), a
 * fifth of what the whole handler path costs (issue 14, bench/edge-layers.ts). The middleware's
 * `logEvent` is left out on purpose: an event holds payment signatures and license tokens.
 */
export class InvocationLogger extends Logger {
  // No #private members: Powertools' constructor may already write a line (a warning when Lambda's
  // log level is less verbose than ours), which reaches processLogItem below before a subclass's
  // #private fields and methods exist; touching one then throws, and the function cannot start.
  private pending: Invocation | undefined;

  /**
   * Marks the start of an API invocation: its lines carry `context` and `correlationId`. Cold
   * start is decided here, by the order of invocations, not by which one first writes a line.
   */
  bindInvocation(context: Context, correlationId: string): void {
    this.pending = { context, correlationId, coldStart: this.coldStart };
    this.coldStart = false;
    if (SAMPLING) this.refreshSampleRateCalculation();
  }

  /** An explicit context (a task handler's) replaces an invocation not yet applied. */
  override addContext(context: Context): void {
    this.pending = undefined;
    super.addContext(context);
  }

  /** Keys appended during an invocation are added after its context is applied, so the reset below keeps them. */
  override appendKeys(attributes: Parameters<Logger['appendKeys']>[0]): void {
    this.applyPending();
    super.appendKeys(attributes);
  }

  protected override processLogItem(...args: Parameters<Logger['processLogItem']>): void {
    this.applyPending();
    super.processLogItem(...args);
  }

  private applyPending(): void {
    const invocation = this.pending;
    if (!invocation) return;
    this.pending = undefined;
    this.resetKeys();
    // addContext reads the cold start through getColdStart(), which clears it again.
    this.coldStart = invocation.coldStart;
    super.addContext(invocation.context);
    this.setCorrelationId(invocation.correlationId);
  }
}

export const logger = new InvocationLogger({ serviceName: process.env['POWERTOOLS_SERVICE_NAME'] ?? 'skill-market' });
