/**
 * Every status machine, enumerated: the registry (lib/admin/state-machines.ts) holds every machine a state.ts
 * defines, and for each pair (from, to) of a machine's statuses it allows the move exactly when the table below
 * (the documented machine) lists it. A transition added or removed in code without changing the documented
 * table fails here, and so does a machine left out of the registry.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { STATE_MACHINES } from '@/lib/admin/state-machines';
import { refundStatusOf } from '@/lib/refunds/refund-status-of';
import { holdsRefundAmount, REFUND_STATUSES } from '@/lib/refunds/state';
import { defineStateMachine, IllegalTransitionError, type StateMachine } from '@/lib/state-machine';

/** The documented tables, by machine name: what each state.ts header draws. */
const DOCUMENTED: Record<string, Record<string, readonly string[]>> = {
  charge: {
    pending: ['processing', 'expired', 'canceled'],
    processing: ['succeeded', 'failed'],
    succeeded: [],
    failed: [],
    expired: [],
    canceled: [],
  },
  // Transfers seen on chain into a deposit address; Solana adds dropped → confirmed to the scanner's moves.
  payment: { pending: ['confirmed', 'dropped'], confirmed: ['pending'], dropped: ['pending', 'confirmed'] },
  'observed transfer': { pending: ['confirmed', 'dropped'], confirmed: ['pending'], dropped: ['pending'] },
  transfer: {
    signed: ['broadcast', 'included', 'failed'],
    broadcast: ['included', 'failed'],
    included: ['confirmed', 'failed', 'broadcast'],
    // A re-organisation deeper than the depth re-opens a confirmed transfer (docs/adr/0036).
    confirmed: ['included'],
    failed: [],
  },
  'swap execution': { signed: ['broadcast', 'confirmed', 'failed'], broadcast: ['confirmed', 'failed'], confirmed: [], failed: [] },
  'on-ramp order': {
    created: ['pending', 'completed', 'failed', 'expired'],
    pending: ['completed', 'failed'],
    completed: [],
    failed: [],
    expired: [],
  },
  'webhook delivery': {
    held: ['pending'],
    pending: ['sending', 'canceled'],
    sending: ['sending', 'succeeded', 'failed', 'canceled'],
    succeeded: [],
    failed: [],
    canceled: [],
  },
  'webhook endpoint': { active: ['failing', 'disabled'], failing: ['active', 'disabled'], disabled: ['active'] },
  fulfilment: { pending: ['submitted', 'failed'], submitted: ['succeeded', 'failed'], succeeded: [], failed: ['pending'] },
  'refund claim': { awaiting_claim: ['claimed', 'expired'], claimed: [], expired: [] },
  refund: {
    awaiting_claim: ['pending', 'expired'],
    expired: [],
    pending: ['submitted', 'succeeded', 'failed'],
    submitted: ['succeeded', 'failed'],
    succeeded: [],
    failed: [],
  },
  'sandbox session': {
    open: ['authenticating', 'processing', 'failed'],
    authenticating: ['processing', 'failed'],
    processing: ['completed', 'failed'],
    completed: [],
    failed: [],
  },
  'payment request': { pending: ['confirmed', 'declined', 'expired'], confirmed: [], declined: [], expired: [] },
};

function isStateMachine(value: unknown): value is StateMachine<string> {
  return typeof value === 'object' && value !== null && 'table' in value && 'leadingTo' in value && 'statuses' in value;
}

/** Every lib/**\/state.ts, relative to the repository root. */
function stateFiles(dir = 'lib'): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return stateFiles(full);
    return entry.name === 'state.ts' ? [full] : [];
  });
}

describe('the state machine registry', () => {
  it('holds every machine each lib/**/state.ts defines, and each state.ts defines one', async () => {
    const files = stateFiles();
    expect(files.length).toBeGreaterThanOrEqual(11);
    for (const file of files) {
      const exports = (await import(/* @vite-ignore */ path.resolve(file))) as Record<string, unknown>;
      const machines = Object.values(exports).filter(isStateMachine);
      expect(machines.length, `${file} defines no machine with defineStateMachine`).toBeGreaterThan(0);
      for (const machine of machines)
        expect(STATE_MACHINES, `${file}: ${machine.name} is not in lib/admin/state-machines.ts`).toContain(machine);
    }
  });

  it('each state.ts imports only the foundation (so any schema may import it: ADR 0032)', () => {
    const foundation = /^@\/lib\/([^/]+|(db|chains|keyring)\/.+)$/;
    for (const file of stateFiles()) {
      const imports = [...readFileSync(file, 'utf8').matchAll(/from '([^']+)'/g)].map((match) => match[1]!);
      expect(
        imports.filter((source) => !foundation.test(source)),
        `${file} imports above the foundation`,
      ).toEqual([]);
    }
  });

  it('names each machine once, and documents each one here', () => {
    const names = STATE_MACHINES.map((machine) => machine.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names.sort()).toEqual(Object.keys(DOCUMENTED).sort());
  });
});

describe('status machines: every allowed transition is allowed, every other is refused', () => {
  for (const machine of STATE_MACHINES) {
    it(machine.name, () => {
      const expected = DOCUMENTED[machine.name]!;
      expect(Object.keys(expected).sort()).toEqual([...machine.statuses].sort());
      for (const from of machine.statuses) {
        for (const to of machine.statuses) {
          const allowed = expected[from]!.includes(to);
          expect(machine.can(from, to), `${from} → ${to}`).toBe(allowed);
          expect(machine.leadingTo(to).includes(from), `${from} leads to ${to}`).toBe(allowed);
          if (allowed) expect(() => machine.assert(from, to)).not.toThrow();
          else expect(() => machine.assert(from, to)).toThrow(IllegalTransitionError);
        }
        expect(machine.isTerminal(from)).toBe(expected[from]!.length === 0);
      }
    });
  }

  it('refunds: the status on the wire follows the claim, then the transfer', () => {
    // A claim link without its transfer holds its amount until it expires; a failed transfer holds nothing.
    expect(refundStatusOf({ claimStatus: 'awaiting_claim', transferStatus: null })).toBe('awaiting_claim');
    expect(refundStatusOf({ claimStatus: 'expired', transferStatus: null })).toBe('expired');
    expect(refundStatusOf({ claimStatus: 'claimed', transferStatus: 'broadcast' })).toBe('submitted');
    expect(REFUND_STATUSES.filter((status) => !holdsRefundAmount(status))).toEqual(['expired', 'failed']);
  });
});

describe('defineStateMachine', () => {
  const machine = defineStateMachine({
    name: 'order',
    statuses: ['open', 'paid', 'void'],
    transitions: { open: ['paid', 'void'], paid: [], void: [] },
  });

  it('names the machine, the statuses and, when given, the row in its one error', () => {
    expect(() => machine.assert('paid', 'open')).toThrow('An order cannot go from paid to open');
    const error = (() => {
      try {
        machine.assert('void', 'paid', 'ord_1');
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(IllegalTransitionError);
    expect(error).toMatchObject({
      machine: 'order',
      from: 'void',
      to: 'paid',
      subjectId: 'ord_1',
      message: 'Order ord_1 cannot go from void to paid',
    });
  });

  it('lists the statuses leading to one in the order of the statuses', () => {
    expect(machine.leadingTo('void')).toEqual(['open']);
    expect(machine.leadingTo('open')).toEqual([]);
  });

  it('checks a writer’s own from-list against the table', () => {
    expect(machine.from(['open'], 'void')).toEqual(['open']);
    expect(() => machine.from(['open', 'paid'], 'void')).toThrow('An order cannot go from paid to void');
  });

  it('refuses a table naming a status it does not have', () => {
    const statuses: readonly string[] = ['a', 'b'];
    expect(() => defineStateMachine({ name: 'broken', statuses, transitions: { a: ['c'], b: [] } })).toThrow(
      'names a status it does not have',
    );
  });
});
