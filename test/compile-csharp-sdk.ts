/**
 * The C# game SDK (sdk/csharp, a Unity package) compiled with Mono's mcs.
 *  - `compileCsharpSdkTest`: Runtime/ as built outside Unity (HttpClientTransport), the sample's engine-free
 *    logic and the test program; returns the .exe that sdk/test/csharp-sdk.test.ts runs against the app.
 *  - `typecheckCsharpSdkForUnity`: Runtime/ and the whole sample as built inside Unity
 *    (UNITY_2020_3_OR_NEWER: UnityWebRequestTransport), against a stub of the few UnityEngine types they use.
 *    A typecheck only: the stub throws if run, and nothing here runs Unity.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const SDK_DIR = path.resolve(import.meta.dirname, '../sdk/csharp');
const SAMPLE_DIR = path.join(SDK_DIR, 'Samples~', 'SignInAndPay');

function csharpFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.cs'))
    .map((file) => path.join(dir, file));
}

function mcs(args: string[]): void {
  const result = spawnSync('mcs', ['-langversion:7.2', '-warnaserror+', ...args], { encoding: 'utf8' });
  if (result.error) throw new Error(`mcs is not installed (Debian: apt-get install mono-mcs mono-runtime): ${result.error.message}`);
  if (result.status !== 0) throw new Error(`mcs failed:\n${result.stdout}${result.stderr}`);
}

export function compileCsharpSdkTest(): string {
  const out = path.join(mkdtempSync(path.join(tmpdir(), 'chargeport-csharp-')), 'SdkTest.exe');
  mcs([
    '-r:System.Net.Http.dll',
    `-out:${out}`,
    ...csharpFiles(path.join(SDK_DIR, 'Runtime')),
    path.join(SAMPLE_DIR, 'ChargeportShop.cs'),
    path.join(SDK_DIR, 'Tests~', 'SdkTest.cs'),
  ]);
  return out;
}

/** No System.Net.Http reference: inside Unity the package must not need it. */
export function typecheckCsharpSdkForUnity(): void {
  const out = path.join(mkdtempSync(path.join(tmpdir(), 'chargeport-unity-stub-')), 'Chargeport.dll');
  mcs([
    '-target:library',
    '-define:UNITY_2020_3_OR_NEWER',
    `-out:${out}`,
    ...csharpFiles(path.join(SDK_DIR, 'Runtime')),
    ...csharpFiles(SAMPLE_DIR),
    path.join(SDK_DIR, 'Tests~', 'UnityEngineStub.cs'),
  ]);
}
