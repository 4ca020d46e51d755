import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One dynalite, one anvil and one edge server for the whole run, started on free ports.
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // CDK tests bundle every Lambda with esbuild; the rest are I/O bound. Two cores here.
    maxWorkers: 2,
    reporters: ['default', './test/support/summary-reporter.ts'],
    // ENDPOINTS_FILE: a file no start writes, so the tools a test runs never find a developer's running `npm start` (local/endpoints.ts).
    env: {
      POWERTOOLS_LOG_LEVEL: 'SILENT',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      ENDPOINTS_FILE: join(tmpdir(), 'skill-market-tests-no-endpoints.json'),
    },
  },
});
