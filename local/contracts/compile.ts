/**
 * Compiles TestStablecoin.sol with solc-js and writes (or, with --check, verifies)
 * the committed artifact beside it. The artifact is committed so `npm start` needs
 * no compiler; the test suite runs this with --check so source and artifact cannot drift.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
// solc ships CommonJS without types; the shape used here is documented in its README.
import solc from 'solc';

const here = dirname(fileURLToPath(import.meta.url));
const sourceName = 'TestStablecoin.sol';
const artifactPath = join(here, 'test-stablecoin.artifact.json');

export function compileTestStablecoin(): { abi: unknown[]; bytecode: `0x${string}`; compiler: string } {
  const input = {
    language: 'Solidity',
    sources: { [sourceName]: { content: readFileSync(join(here, sourceName), 'utf8') } },
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: 'cancun',
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
    },
  };
  const output = JSON.parse((solc as { compile(s: string): string }).compile(JSON.stringify(input)));
  const errors = (output.errors ?? []).filter((e: { severity: string }) => e.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((e: { formattedMessage: string }) => e.formattedMessage).join('\n'));
  const contract = output.contracts[sourceName].TestStablecoin;
  return {
    abi: contract.abi,
    bytecode: `0x${contract.evm.bytecode.object}`,
    compiler: (solc as { version(): string }).version(),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const compiled = compileTestStablecoin();
  const text = `${JSON.stringify({ contractName: 'TestStablecoin', ...compiled }, null, 2)}\n`;
  if (process.argv.includes('--check')) {
    if (readFileSync(artifactPath, 'utf8') !== text) {
      console.error('test-stablecoin.artifact.json is stale: run `npx tsx local/contracts/compile.ts`');
      process.exit(1);
    }
  } else {
    writeFileSync(artifactPath, text);
    console.log(`wrote ${artifactPath}`);
  }
}
