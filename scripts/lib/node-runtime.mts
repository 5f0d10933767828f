/**
 * The Node the project runs and is tested on. `engines.node` in package.json is the floor (the highest any
 * installed package asks for); the `node` devDependency pins the exact version `npm install` puts in
 * node_modules/.bin, which npm puts first on PATH for every `npm run …` / `npx …`, whatever Node the machine
 * ships. `.ci/node-env` does the same for CI's own shell.
 */
import { readFileSync } from 'node:fs';
import semver from 'semver';

export interface NodePins {
  /** engines.node, e.g. ">=22.13" */
  floor: string;
  /** devDependencies.node, an exact version */
  pinned: string;
}

export function readNodePins(packageJsonPath = 'package.json'): NodePins {
  const pkg = JSON.parse(readFileSync(packageJsonPath, 'utf8')) as {
    engines: { node: string };
    devDependencies: Record<string, string>;
  };
  return { floor: pkg.engines.node, pinned: pkg.devDependencies.node! };
}

/** Why Node `version` must not run the suite, or undefined when it may. */
export function nodeRuntimeProblem(version: string, pins: NodePins): string | undefined {
  if (semver.satisfies(version, pins.floor)) return undefined;
  return (
    `Node ${version} is below the project's floor (engines.node "${pins.floor}"). \`npm install\` puts Node ` +
    `${pins.pinned} in node_modules/.bin: run through npm (\`npm test\`, \`npm run …\`, \`npx …\`), or source .ci/node-env.`
  );
}
