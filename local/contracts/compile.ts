/**
 * Compiles the local chain's contracts (TestStablecoin.sol, Multicall.sol, TestSmartWallet.sol, IdentityRegistry.sol, TestPriceFeed.sol,
 * and base/commerce-payments' AuthCaptureEscrow, TokenStore, ERC3009PaymentCollector and OperatorRefundCollector, and the
 * escrow operator's EscrowOperatorGuard, issue 53) with solc-js
 * and writes (or, with --check, verifies) the committed artifacts beside them. The artifacts are
 * committed so `npm start` needs no compiler; the test suite compares them with a fresh compile
 * so source and artifact cannot drift.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
// solc ships CommonJS without types; the shape used here is documented in its README.
import solc from 'solc';

const here = dirname(fileURLToPath(import.meta.url));

/** What an artifact holds besides its contract name. */
export interface CompiledContract {
  abi: unknown[];
  bytecode: `0x${string}`;
  compiler: string;
}

/** Every contract this script builds: its source file, contract name and committed artifact. */
const CONTRACTS = [
  { sourceName: 'TestStablecoin.sol', contractName: 'TestStablecoin', artifact: 'test-stablecoin.artifact.json' },
  { sourceName: 'Multicall.sol', contractName: 'Multicall', artifact: 'multicall.artifact.json' },
  { sourceName: 'TestSmartWallet.sol', contractName: 'TestSmartWallet', artifact: 'test-smart-wallet.artifact.json' },
  { sourceName: 'TestSmartWallet.sol', contractName: 'TestWalletFactory', artifact: 'test-wallet-factory.artifact.json' },
  { sourceName: 'IdentityRegistry.sol', contractName: 'IdentityRegistry', artifact: 'identity-registry.artifact.json' },
  { sourceName: 'TestPriceFeed.sol', contractName: 'TestPriceFeed', artifact: 'test-price-feed.artifact.json' },
  { sourceName: 'src/AuthCaptureEscrow.sol', contractName: 'AuthCaptureEscrow', artifact: 'auth-capture-escrow.artifact.json' },
  { sourceName: 'src/TokenStore.sol', contractName: 'TokenStore', artifact: 'token-store.artifact.json' },
  {
    sourceName: 'src/collectors/ERC3009PaymentCollector.sol',
    contractName: 'ERC3009PaymentCollector',
    artifact: 'erc3009-payment-collector.artifact.json',
  },
  {
    sourceName: 'src/collectors/OperatorRefundCollector.sol',
    contractName: 'OperatorRefundCollector',
    artifact: 'operator-refund-collector.artifact.json',
  },
  { sourceName: 'EscrowOperatorGuard.sol', contractName: 'EscrowOperatorGuard', artifact: 'escrow-operator-guard.artifact.json' },
] as const;

/**
 * base/commerce-payments (MIT), vendored unchanged under commerce-payments/ at 3f77761 (2025-08-01):
 * its imports resolve as its remappings.txt says, to the npm packages of the same libraries
 * (`@openzeppelin/contracts/` and `solady/` → solady's `src/`).
 */
const COMMERCE_PAYMENTS = join(here, 'commerce-payments');
const nodeModules = join(here, '..', '..', 'node_modules');

function resolveImport(path: string): { contents: string } | { error: string } {
  const file = path.startsWith('@openzeppelin/contracts/')
    ? join(nodeModules, path)
    : path.startsWith('solady/')
      ? join(nodeModules, 'solady', 'src', path.slice('solady/'.length))
      : join(COMMERCE_PAYMENTS, path);
  try {
    return { contents: readFileSync(file, 'utf8') };
  } catch {
    return { error: `not found: ${path}` };
  }
}

/**
 * Compiles one source file on its own, with fixed settings: one source per input keeps each
 * contract's metadata hash (and so its bytecode) independent of the other contracts here.
 */
function compile(sourceName: string, contractName: string): CompiledContract {
  const vendored = sourceName.startsWith('src/');
  const input = {
    language: 'Solidity',
    sources: { [sourceName]: { content: readFileSync(join(vendored ? COMMERCE_PAYMENTS : here, sourceName), 'utf8') } },
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: 'cancun',
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
    },
  };
  const compiler = solc as { compile(s: string, callbacks?: { import(path: string): unknown }): string };
  const output = JSON.parse(compiler.compile(JSON.stringify(input), { import: resolveImport }));
  const errors = (output.errors ?? []).filter((e: { severity: string }) => e.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((e: { formattedMessage: string }) => e.formattedMessage).join('\n'));
  const contract = output.contracts[sourceName][contractName];
  return {
    abi: contract.abi,
    bytecode: `0x${contract.evm.bytecode.object}`,
    compiler: (solc as { version(): string }).version(),
  };
}

/** The 6-decimal ERC-20 with EIP-3009 that stands in for USDC and USDbC. */
export function compileTestStablecoin(): CompiledContract {
  return compile('TestStablecoin.sol', 'TestStablecoin');
}

/** Multicall3's read-batching entry points, placed at Multicall3's address on the local chain. */
export function compileMulticall(): CompiledContract {
  return compile('Multicall.sol', 'Multicall');
}

/** A minimal EIP-1271 contract wallet for tests. */
export function compileTestSmartWallet(): CompiledContract {
  return compile('TestSmartWallet.sol', 'TestSmartWallet');
}

/** Deploys TestSmartWallets with CREATE2 (a counterfactual wallet's ERC-6492 signature names it). */
export function compileTestWalletFactory(): CompiledContract {
  return compile('TestSmartWallet.sol', 'TestWalletFactory');
}

/** The local stand-in of the ERC-8004 Identity Registry. */
export function compileIdentityRegistry(): CompiledContract {
  return compile('IdentityRegistry.sol', 'IdentityRegistry');
}

/** The Chainlink-compatible ETH / USD feed placed at Chainlink's Base address on the local chain. */
export function compileTestPriceFeed(): CompiledContract {
  return compile('TestPriceFeed.sol', 'TestPriceFeed');
}

/** x402 `auth-capture`'s escrow (base/commerce-payments): authorize, capture, void, reclaim, refund. */
export function compileAuthCaptureEscrow(): CompiledContract {
  return compile('src/AuthCaptureEscrow.sol', 'AuthCaptureEscrow');
}

/**
 * The escrow's per-operator token store. The escrow's constructor makes one naming its own address;
 * local/escrow.ts deploys one naming the canonical escrow address, whose code the escrow's clones copy.
 */
export function compileTokenStore(): CompiledContract {
  return compile('src/TokenStore.sol', 'TokenStore');
}

/** The escrow's token collector for ERC-3009 ReceiveWithAuthorization, which x402's AuthCaptureEvmScheme signs. */
export function compileErc3009PaymentCollector(): CompiledContract {
  return compile('src/collectors/ERC3009PaymentCollector.sol', 'ERC3009PaymentCollector');
}

/**
 * The escrow's refund collector: brings the amount of an operator's `refund` into the escrow from
 * the operator's own balance (an ERC-20 allowance the operator gave it), for the escrow to send on to the payer.
 */
export function compileOperatorRefundCollector(): CompiledContract {
  return compile('src/collectors/OperatorRefundCollector.sol', 'OperatorRefundCollector');
}

/** The code the escrow operator's account delegates to (EIP-7702): its authorize, made only when the payer can pay. */
export function compileEscrowOperatorGuard(): CompiledContract {
  return compile('EscrowOperatorGuard.sol', 'EscrowOperatorGuard');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check');
  let stale = false;
  for (const { sourceName, contractName, artifact } of CONTRACTS) {
    const text = `${JSON.stringify({ contractName, ...compile(sourceName, contractName) }, null, 2)}\n`;
    const path = join(here, artifact);
    if (check) {
      let committed: string | undefined;
      try {
        committed = readFileSync(path, 'utf8');
      } catch {
        committed = undefined;
      }
      if (committed !== text) {
        console.error(`${artifact} is stale: run \`npx tsx local/contracts/compile.ts\``);
        stale = true;
      }
    } else {
      writeFileSync(path, text);
      console.log(`wrote ${path}`);
    }
  }
  if (stale) process.exit(1);
}
