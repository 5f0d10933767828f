/**
 * Compiles contracts/*.sol with the npm solc compiler and writes ABI + runtime bytecode to
 * lib/chains/artifacts/. Run after editing a contract: `npx tsx scripts/build-contracts.mts`.
 * The artifacts are committed so nothing is compiled or fetched at start.
 */
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const solc = require('solc');

const sources = Object.fromEntries(
  readdirSync('contracts')
    .filter((file) => file.endsWith('.sol'))
    .map((file) => [file, { content: readFileSync(path.join('contracts', file), 'utf8') }]),
);

const output = JSON.parse(
  solc.compile(
    JSON.stringify({
      language: 'Solidity',
      sources,
      settings: {
        optimizer: { enabled: true, runs: 200 },
        evmVersion: 'paris',
        outputSelection: { '*': { '*': ['abi', 'evm.deployedBytecode.object'] } },
      },
    }),
  ),
);

const errors = (output.errors ?? []).filter((e: { severity: string }) => e.severity === 'error');
if (errors.length) {
  console.error(errors.map((e: { formattedMessage: string }) => e.formattedMessage).join('\n'));
  process.exit(1);
}

for (const [file, contracts] of Object.entries(output.contracts as Record<string, Record<string, any>>)) {
  for (const [name, contract] of Object.entries(contracts)) {
    const artifact = {
      contractName: name,
      source: `contracts/${file}`,
      compiler: `solc ${solc.version()}`,
      abi: contract.abi,
      deployedBytecode: `0x${contract.evm.deployedBytecode.object}`,
    };
    const out = path.join('lib/chains/artifacts', `${name}.json`);
    writeFileSync(out, `${JSON.stringify(artifact, null, 2)}\n`);
    console.log(`wrote ${out}`);
  }
}
