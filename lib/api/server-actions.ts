/**
 * The one way to write a server action (issue 28, point 2; modelled on next-safe-action's clients, whose
 * `{ data, serverError, validationErrors }` result our forms do not read). The wrapper builds `ctx` (the
 * signed-in, e-mail-verified user, or the member with their merchant, the dashboard mode and the form's
 * step-up proof), parses the input with the verb's schema when given, and maps errors through `actionError`
 * into the one result shape: `FormState` for `useActionState` forms (the submitted values kept on error),
 * `ActionResult` for actions called from client code. Anything that is not an AppError (Next's
 * redirect()/notFound(), bugs) is rethrown, so redirects and error boundaries work as before.
 */
import { headers } from 'next/headers';
import type { z } from 'zod';
import { stepUpFromForm } from '@/lib/accounts/step-up-form';
import type { StepUpProof } from '@/lib/accounts/step-up';
import { actionError, type ActionResult } from '@/lib/action-error';
import { parseOrThrow } from '@/lib/api/parse';
import type { FormState } from '@/lib/auth/form-state';
import { requireUserForAction } from '@/lib/auth/session';
import { getDb } from '@/lib/db/client';
import { clientIpFrom } from '@/lib/http/client-ip';
import { refuseNulCharacters } from '@/lib/http/refuse-nul-characters';
import type { User } from '@/lib/db/schema';
import { dashboardMode, type ApiKeyMode } from '@/lib/merchants/dashboard-mode';
import { currentMemberActor } from '@/lib/merchants/member-actor';
import { authorizeMember, type Permission } from '@/lib/merchants/permissions';

type Values = Record<string, string>;
type Fallback = Parameters<typeof actionError>[1];

/** A form field as a string ('' when absent). */
export const formField = (form: FormData, name: string): string => String(form.get(name) ?? '');

/** JSON a form built (a hidden field): unreadable JSON becomes the AppError `refused` gives. */
export function formJson(text: string, refused: () => Error): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw refused();
  }
}

/** The signed-in, e-mail-verified user and the request's IP (rate limits, audit). */
export interface UserCtx {
  user: User;
  ip: string | null;
}

/** The member acting in the dashboard: who, for which merchant, from where; the dashboard's mode; the form's step-up. */
export interface MemberCtx {
  actor: { userId: string; merchantId: string; ip: string | null };
  mode: ApiKeyMode;
  stepUp: StepUpProof;
}

interface FormOptions<I, V extends Values, S = FormState> {
  /** The verb's schema (the route's, where one exists): a failure answers invalid_request naming the field. */
  schema?: z.ZodType<I>;
  /** What the schema parses (default: the form's fields as strings). */
  fields?: (form: FormData) => unknown;
  /** The submitted values the page shows again when the action fails. */
  values?: (form: FormData) => V;
  /** What else the answer to an AppError carries (e.g. the step still on screen); gets the previous state. */
  onError?: (error: unknown, state: S) => Partial<S>;
  /** Given, a bug is logged and answered internal_error with this message instead of reaching the error boundary. */
  fallback?: Fallback;
}

interface FormArgs<I, V extends Values, S> {
  form: FormData;
  /** The form's previous state (a two-step form keeps its first step's answer). */
  state: S;
  input: I;
  /** What `values` read from the form (empty without it). */
  values: V;
}

function formAction<C, S extends FormState, I, V extends Values>(
  context: (form: FormData) => Promise<C>,
  options: FormOptions<I, V, S>,
  fn: (ctx: C, args: FormArgs<I, V, S>) => Promise<S>,
): (state: S, form: FormData) => Promise<S> {
  return async (state, form) => {
    const values = options.values?.(form) ?? ({} as V);
    try {
      // The database stores no NUL character: a field carrying one is refused naming it, before any work.
      refuseNulCharacters(formStrings(form), { in: 'body' });
      const ctx = await context(form);
      const input = options.schema
        ? parseOrThrow(options.schema, options.fields ? options.fields(form) : Object.fromEntries(form))
        : (undefined as I);
      return await fn(ctx, { form, state, input, values });
    } catch (error) {
      const failed = { error: actionError(error, options.fallback), values: options.values ? values : undefined } as S;
      return options.onError ? { ...failed, ...options.onError(error, state) } : failed;
    }
  };
}

/** A form's text fields by name (files are not text). */
function formStrings(form: FormData): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [name, value] of form) if (typeof value === 'string') fields[name] = value;
  return fields;
}

/** No session needed; `requireUser()` refuses with unauthenticated / email_not_verified where a branch needs one. */
export interface PublicCtx {
  ip: string | null;
  requireUser: () => Promise<User>;
}

async function publicContext(): Promise<PublicCtx> {
  return { ip: clientIpFrom(await headers()), requireUser: requireUserForAction };
}

async function userContext(): Promise<UserCtx> {
  const user = await requireUserForAction();
  return { user, ip: clientIpFrom(await headers()) };
}

async function memberContext(form: FormData, permission?: Permission): Promise<MemberCtx> {
  const actor = await currentMemberActor();
  // The verb authorizes again inside its transaction; this refuses early, before any work.
  if (permission) await authorizeMember(getDb(), { userId: actor.userId, merchantId: actor.merchantId, permission });
  return { actor, mode: await dashboardMode(), stepUp: stepUpFromForm(form) };
}

/** A form action of the signed-in user: `(state, form) => FormState`. */
export function userAction<S extends FormState = FormState, I = undefined, V extends Values = Values>(
  options: FormOptions<I, V, S>,
  fn: (ctx: UserCtx, args: FormArgs<I, V, S>) => Promise<NoInfer<S>>,
): (state: S, form: FormData) => Promise<S> {
  return formAction(userContext, options, fn);
}

/** A dashboard form action: the member must hold `permission` when given (the verb checks it again). */
export function memberAction<S extends FormState = FormState, I = undefined, V extends Values = Values>(
  options: FormOptions<I, V, S> & { permission?: Permission },
  fn: (ctx: MemberCtx, args: FormArgs<I, V, S>) => Promise<NoInfer<S>>,
): (state: S, form: FormData) => Promise<S> {
  return formAction((form) => memberContext(form, options.permission), options, fn);
}

/** A form action open without a session (sign-in steps, the anonymous buyer); `requireUser` for its signed-in branch. */
export function publicAction<S extends FormState = FormState, I = undefined, V extends Values = Values>(
  options: FormOptions<I, V, S>,
  fn: (ctx: PublicCtx, args: FormArgs<I, V, S>) => Promise<NoInfer<S>>,
): (state: S, form: FormData) => Promise<S> {
  return formAction(publicContext, options, fn);
}

/** An action called from client code, answering `{ data }` or `{ error }`; `fallback` turns a bug into internal_error. */
export function userCall<A extends unknown[], T>(
  fn: (ctx: UserCtx, ...args: A) => Promise<T>,
  fallback?: Fallback,
): (...args: A) => Promise<ActionResult<T>> {
  return clientAction(userContext, fn, fallback);
}

/** The same without a session. */
export function publicCall<A extends unknown[], T>(
  fn: (ctx: PublicCtx, ...args: A) => Promise<T>,
  fallback?: Fallback,
): (...args: A) => Promise<ActionResult<T>> {
  return clientAction(publicContext, fn, fallback);
}

function clientAction<C, A extends unknown[], T>(
  context: () => Promise<C>,
  fn: (ctx: C, ...args: A) => Promise<T>,
  fallback?: Fallback,
): (...args: A) => Promise<ActionResult<T>> {
  return async (...args) => {
    try {
      refuseNulCharacters(args, { in: 'body' });
      return { data: await fn(await context(), ...args) };
    } catch (error) {
      return { error: actionError(error, fallback) };
    }
  };
}
