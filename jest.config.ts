import type { Config } from 'jest';

const transform: Config['transform'] = {
  '^.+\\.(t|j)sx?$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } }],
};
const shared = {
  transform,
  testEnvironment: 'node',
  moduleFileExtensions: ['ts', 'js', 'json', 'mjs', 'cjs'],
};

const config: Config = {
  // Per-project testTimeout is ignored by Jest; integration tests start real servers.
  testTimeout: 60_000,
  // Jest's default on 2 cores is one worker; the integration suites spend most of their time
  // waiting on servers and simulated model latency, so four run side by side (measured on this
  // 2-core machine, quiet, 98 files: 5 m 39 s with four, 6 m 36 s with three; earlier, with two, 8 m 4 s).
  maxWorkers: 4,
  projects: [
    {
      ...shared,
      displayName: 'unit',
      testMatch: ['<rootDir>/{apps,packages}/*/src/**/*.test.ts'],
      testPathIgnorePatterns: ['\\.int\\.test\\.ts$', '\\.e2e\\.test\\.ts$'],
    },
    {
      ...shared,
      displayName: 'integration',
      testMatch: ['<rootDir>/{apps,packages}/*/src/**/*.int.test.ts', '<rootDir>/test/**/*.int.test.ts'],
      globalSetup: '<rootDir>/packages/testing/src/global-setup.ts',
    },
  ],
};

export default config;
