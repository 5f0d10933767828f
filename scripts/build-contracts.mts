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

/** `@openzeppelin/…` imports come from node_modules (the kept, audited library). */
function findImports(importPath: string): { contents: string } | { error: string } {
  try {
    return { contents: readFileSync(require.resolve(importPath), 'utf8') };
  } catch {
    return { error: `not found: ${importPath}` };
  }
}

/**
 * Contracts built on OpenZeppelin 5 need Cancun (its Arrays library uses `mcopy`; anvil and Polygon run
 * Cancun); the others keep `paris` so their committed bytecode does not change.
 */
const evmVersionOf = (content: string) => (content.includes('@openzeppelin/') ? 'cancun' : 'paris');

function compile(group: Record<string, { content: string }>, evmVersion: string) {
  const result = JSON.parse(
    solc.compile(
      JSON.stringify({
        language: 'Solidity',
        sources: group,
        settings: {
          optimizer: { enabled: true, runs: 200 },
          evmVersion,
          outputSelection: { '*': { '*': ['abi', 'evm.deployedBytecode.object'] } },
        },
      }),
      { import: findImports },
    ),
  );
  const errors = (result.errors ?? []).filter((e: { severity: string }) => e.severity === 'error');
  if (errors.length) {
    console.error(errors.map((e: { formattedMessage: string }) => e.formattedMessage).join('\n'));
    process.exit(1);
  }
  return result.contracts as Record<string, Record<string, any>>;
}

const output = { contracts: {} as Record<string, Record<string, any>> };
for (const evmVersion of ['paris', 'cancun']) {
  const group = Object.fromEntries(Object.entries(sources).filter(([, source]) => evmVersionOf(source.content) === evmVersion));
  if (Object.keys(group).length) Object.assign(output.contracts, compile(group, evmVersion));
}

for (const [file, contracts] of Object.entries(output.contracts)) {
  if (!(file in sources)) continue; // an imported library's contracts
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
