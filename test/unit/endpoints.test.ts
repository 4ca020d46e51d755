/**
 * The endpoints file (local/endpoints.ts): where `npm start` writes where it runs, and how a tool
 * picks the running start's addresses, behind its own flags and environment.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_DATA_DIR,
  endpointsCandidates,
  endpointsFileFor,
  ephemeralEndpointsFile,
  readEndpointsFrom,
  removeEndpoints,
  toolEndpoints,
  writeEndpoints,
  type LocalEndpoints,
} from '../../local/endpoints';

const dir = mkdtempSync(join(tmpdir(), 'endpoints-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A process id that ran and is gone. */
const gonePid = (): number => Number(spawnSync(process.execPath, ['-e', 'console.log(process.pid)']).stdout.toString().trim());

const running = (over: Partial<LocalEndpoints> = {}): LocalEndpoints => ({
  pid: process.pid,
  startedAt: '2026-01-01T00:00:00.000Z',
  baseUrl: 'http://127.0.0.1:9001',
  rpcUrls: ['http://127.0.0.1:9002'],
  dynamodbEndpoint: 'http://127.0.0.1:9003',
  dataDir: join(dir, 'data'),
  settings: { TREASURY_ADDRESS: '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720' },
  ...over,
});

describe('the endpoints file', () => {
  it('is in the data dir, or in this checkout’s own temporary file for an in-memory run; ENDPOINTS_FILE puts it anywhere', () => {
    expect(endpointsFileFor({}, '/d')).toBe('/d/endpoints.json');
    expect(endpointsFileFor({}, undefined)).toBe(ephemeralEndpointsFile());
    expect(ephemeralEndpointsFile().startsWith(tmpdir())).toBe(true);
    expect(endpointsFileFor({ ENDPOINTS_FILE: '/x.json' }, '/d')).toBe('/x.json');
    // An empty setting is no setting.
    expect(endpointsFileFor({ ENDPOINTS_FILE: '' }, '/d')).toBe('/d/endpoints.json');
    // A tool looks where a start writes by default: the data dir's (DATA_DIR, else .data/) and the in-memory run's.
    expect(endpointsCandidates({})).toEqual([join(DEFAULT_DATA_DIR, 'endpoints.json'), ephemeralEndpointsFile()]);
    expect(endpointsCandidates({ DATA_DIR: '/d' })).toEqual(['/d/endpoints.json', ephemeralEndpointsFile()]);
    expect(endpointsCandidates({ ENDPOINTS_FILE: '/x.json', DATA_DIR: '/d' })).toEqual(['/x.json']);
  });

  it('is read only while its start runs, the newest start first; a stop removes only its own', () => {
    const a = join(dir, 'a.json');
    const b = join(dir, 'b.json');
    const gone = join(dir, 'gone.json');
    writeEndpoints(a, running());
    writeEndpoints(b, running({ startedAt: '2026-02-01T00:00:00.000Z', baseUrl: 'http://127.0.0.1:9101' }));
    writeEndpoints(gone, running({ pid: gonePid(), startedAt: '2027-01-01T00:00:00.000Z' }));
    writeFileSync(join(dir, 'torn.json'), '{"pid":');
    expect(readEndpointsFrom([a, gone, join(dir, 'torn.json'), join(dir, 'none.json')])?.file).toBe(a);
    expect(readEndpointsFrom([a, b, gone])?.endpoints.baseUrl).toBe('http://127.0.0.1:9101');
    expect(readEndpointsFrom([gone])).toBeUndefined();

    removeEndpoints(a, process.pid + 1);
    expect(existsSync(a)).toBe(true);
    removeEndpoints(a, process.pid);
    expect(existsSync(a)).toBe(false);
  });

  it('gives a tool the running start’s addresses and settings, behind the environment’s ports; the defaults when none runs', () => {
    const file = join(dir, 'tool.json');
    writeEndpoints(file, running());
    expect(toolEndpoints({ ENDPOINTS_FILE: file })).toEqual({
      baseUrl: 'http://127.0.0.1:9001',
      rpcUrls: ['http://127.0.0.1:9002'],
      dynamodbEndpoint: 'http://127.0.0.1:9003',
      exportsDir: join(dir, 'data', 'exports'),
      settings: { TREASURY_ADDRESS: '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720' },
      file,
    });
    expect(toolEndpoints({ ENDPOINTS_FILE: file, PORT: '1', ANVIL_PORT: '2', DYNAMODB_PORT: '3' })).toMatchObject({
      baseUrl: 'http://127.0.0.1:1',
      rpcUrls: ['http://127.0.0.1:2'],
      dynamodbEndpoint: 'http://127.0.0.1:3',
      // Another chain than the start's: its settings are not that chain's.
      settings: {},
    });
    expect(toolEndpoints({ ENDPOINTS_FILE: join(dir, 'none.json'), DATA_DIR: '/d' })).toEqual({
      baseUrl: 'http://127.0.0.1:8787',
      rpcUrls: ['http://127.0.0.1:8545'],
      dynamodbEndpoint: 'http://127.0.0.1:8000',
      exportsDir: '/d/exports',
      settings: {},
      file: undefined,
    });
  });
});
