import { getAddress, type Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import { publicClientFor } from '@/lib/chains/clients';
import { fromCallTraces, fromParityTraces, traceModeOf, type CallFrame, type ParityTrace } from './internal-transfers';

// Real traces of the NativeForwarder contract are read from anvil in both formats by
// lib/payments/poll-chain-reorg.test.ts; these cover the frame kinds it does not produce.
const tx = `0x${'ab'.repeat(32)}` as Hex;
const wallet = '0x1111111111111111111111111111111111111111';
const singleton = '0x2222222222222222222222222222222222222222';
const payee = '0x3333333333333333333333333333333333333333';
const other = '0x4444444444444444444444444444444444444444';

describe('internal native transfers from call traces (callTracer)', () => {
  it('counts CALL and SELFDESTRUCT value below the top frame; not DELEGATECALL or STATICCALL, not reverted subtrees', () => {
    const top: CallFrame = {
      type: 'CALL',
      from: payee,
      to: wallet,
      value: '0x5',
      calls: [
        // A Safe-style proxy: the singleton's code runs in the wallet's context; the value shown is the caller's.
        {
          type: 'DELEGATECALL',
          from: wallet,
          to: singleton,
          value: '0x5',
          calls: [{ type: 'CALL', from: wallet, to: payee, value: '0x64' }],
        },
        { type: 'STATICCALL', from: wallet, to: other },
        {
          type: 'CALL',
          from: wallet,
          to: other,
          value: '0x1',
          error: 'execution reverted',
          calls: [{ type: 'CALL', from: other, to: payee, value: '0x9' }],
        },
        { type: 'SELFDESTRUCT', from: other, to: payee, value: '0x7' },
      ],
    };
    expect(fromCallTraces([{ txHash: tx, result: top }])).toEqual([
      { txHash: tx, position: 0, from: getAddress(wallet), to: getAddress(payee), value: 100n },
      { txHash: tx, position: 1, from: getAddress(other), to: getAddress(payee), value: 7n },
    ]);
  });

  it('a failed transaction moved nothing', () => {
    const failed: CallFrame = {
      type: 'CALL',
      from: payee,
      to: wallet,
      error: 'out of gas',
      calls: [{ type: 'CALL', from: wallet, to: payee, value: '0x1' }],
    };
    expect(fromCallTraces([{ txHash: tx, result: failed }])).toEqual([]);
  });
});

describe('internal native transfers from Parity-style traces (trace_block)', () => {
  const trace = (traceAddress: number[], action: ParityTrace['action'], extra: Partial<ParityTrace> = {}): ParityTrace => ({
    type: 'call',
    action,
    traceAddress,
    transactionHash: tx,
    ...extra,
  });

  it('the same rules on a flat list: ancestry by trace address', () => {
    const traces: ParityTrace[] = [
      trace([], { callType: 'call', from: payee, to: wallet, value: '0x5' }),
      trace([0], { callType: 'delegatecall', from: wallet, to: singleton, value: '0x5' }),
      trace([0, 0], { callType: 'call', from: wallet, to: payee, value: '0x64' }),
      trace([1], { callType: 'call', from: wallet, to: other, value: '0x1' }, { error: 'Reverted' }),
      trace([1, 0], { callType: 'call', from: other, to: payee, value: '0x9' }),
      trace([10], { callType: 'call', from: wallet, to: payee, value: '0x2' }),
      trace([2], { address: other, refundAddress: payee, balance: '0x7' }, { type: 'suicide' }),
      { type: 'reward', action: { value: '0x1' }, traceAddress: [], transactionHash: null },
    ];
    expect(fromParityTraces(traces).map(({ position, to, value }) => [position, to, value])).toEqual([
      [0, getAddress(payee), 100n],
      [1, getAddress(payee), 2n],
      [2, getAddress(payee), 7n],
    ]);
  });
});

it('probes which tracing method the RPC offers (anvil: trace_block)', async () => {
  expect(await traceModeOf(publicClientFor('POLYGON')!)).toBe('trace_block');
});
