// One jest run over every workspace. @swc/jest strips types (tsc --noEmit checks them separately).
// jose and @octokit/webhooks-methods are ESM-only: jest on Node 20 cannot require() it, so it is transformed too.
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/shared', '<rootDir>/gateway', '<rootDir>/services', '<rootDir>/deploy', '<rootDir>/e2e'].filter((p) =>
    require('fs').existsSync(p.replace('<rootDir>', __dirname)),
  ),
  testMatch: ['**/test/**/*.test.ts', '**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  transform: { '^.+\\.(t|j)sx?$': ['@swc/jest', { jsc: { target: 'es2022' } }] },
  transformIgnorePatterns: ['/node_modules/(?!(jose|@octokit)/)'],
  // @octokit/webhooks-methods exports only an `import` condition, which jest's CommonJS resolver does not match.
  moduleNameMapper: { '^@octokit/webhooks-methods$': '<rootDir>/node_modules/@octokit/webhooks-methods/dist-node/index.js' },
  testTimeout: 30000,
  // Two workers on the 2-core CI machine: most suites wait on I/O (a platform boot, a broker), and
  // jest's default (cores - 1) ran them one at a time.
  maxWorkers: 2,
};
