/**
 * One shape for every status machine (each domain's `state.ts`): the statuses, the table of allowed moves, and the
 * guards every writer uses — `leadingTo(to)` for a guarded `UPDATE … WHERE status IN (…)`, `assert(from, to)` where
 * the current status is already in hand. An illegal move is always an `IllegalTransitionError`. Every machine is
 * listed in lib/admin/state-machines.ts, which test/state-tables.test.ts walks pair by pair.
 */

export class IllegalTransitionError<S extends string = string> extends Error {
  override name = 'IllegalTransitionError';
  constructor(
    readonly machine: string,
    readonly from: S,
    readonly to: S,
    /** The row that tried to move, when the message should name it. */
    readonly subjectId?: string,
  ) {
    super(`${subjectId === undefined ? withArticle(machine) : `${capitalize(machine)} ${subjectId}`} cannot go from ${from} to ${to}`);
  }
}

export interface StateMachine<S extends string> {
  /** What the machine moves, in words ("charge", "webhook delivery"): it names the machine in errors. */
  readonly name: string;
  readonly statuses: readonly S[];
  /** The allowed moves, for the tests that enumerate them. */
  readonly table: Readonly<Record<S, readonly S[]>>;
  can(from: S, to: S): boolean;
  /** Statuses from which `to` is reachable in one step, in the order of `statuses` (for `WHERE status IN (…)`). */
  leadingTo(to: S): S[];
  /**
   * `from`, once each of its moves to `to` is checked against the table: for a writer that moves only some of the
   * statuses leading to `to` (`WHERE status IN (machine.from(['submitted'], 'failed'))`). Throws IllegalTransitionError.
   */
  from<const F extends S>(from: readonly F[], to: S): F[];
  /** Throws IllegalTransitionError unless `from → to` is in the table. */
  assert(from: S, to: S, subjectId?: string): void;
  /** A status with no way out. */
  isTerminal(status: S): boolean;
}

export function defineStateMachine<const S extends string>(definition: {
  name: string;
  statuses: readonly S[];
  transitions: Readonly<Record<NoInfer<S>, readonly NoInfer<S>[]>>;
}): StateMachine<S> {
  const { name, statuses, transitions } = definition;
  for (const [from, tos] of Object.entries<readonly S[]>(transitions)) {
    // The type holds this for literal tables; the check keeps a widened one from naming an unknown status.
    if (!statuses.includes(from as S) || tos.some((to) => !statuses.includes(to)))
      throw new Error(`state machine ${name}: ${from} → ${tos.join(', ')} names a status it does not have`);
  }
  const can = (from: S, to: S): boolean => transitions[from].includes(to);
  return {
    name,
    statuses,
    table: transitions,
    can,
    leadingTo: (to) => statuses.filter((from) => can(from, to)),
    from(from, to) {
      for (const status of from) if (!can(status, to)) throw new IllegalTransitionError(name, status, to);
      return [...from];
    },
    assert(from, to, subjectId) {
      if (!can(from, to)) throw new IllegalTransitionError(name, from, to, subjectId);
    },
    isTerminal: (status) => transitions[status].length === 0,
  };
}

function withArticle(noun: string): string {
  return `${/^[aeiou]/i.test(noun) ? 'An' : 'A'} ${noun}`;
}

function capitalize(noun: string): string {
  return noun.charAt(0).toUpperCase() + noun.slice(1);
}
