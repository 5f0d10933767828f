/** The C# game SDK (sdk/csharp) and its test program compiled with Mono's mcs; returns the .exe. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const SDK_DIR = path.resolve(import.meta.dirname, '../sdk/csharp');

export function compileCsharpSdkTest(): string {
  const out = path.join(mkdtempSync(path.join(tmpdir(), 'chargeport-csharp-')), 'SdkTest.exe');
  const sources = [
    ...readdirSync(path.join(SDK_DIR, 'src')).map((file) => path.join(SDK_DIR, 'src', file)),
    path.join(SDK_DIR, 'tests', 'SdkTest.cs'),
  ].filter((file) => file.endsWith('.cs'));
  const result = spawnSync('mcs', ['-langversion:7.2', '-warnaserror+', '-r:System.Net.Http.dll', `-out:${out}`, ...sources], {
    encoding: 'utf8',
  });
  if (result.error) throw new Error(`mcs is not installed (Debian: apt-get install mono-mcs mono-runtime): ${result.error.message}`);
  if (result.status !== 0) throw new Error(`mcs failed:\n${result.stdout}${result.stderr}`);
  return out;
}
