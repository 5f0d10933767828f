/**
 * Issue 26, "the owner's mailbox shows what was tried": a refused step-up of every family — a refund to
 * an address that never paid, a fulfilment rule created or changed, a withdrawal, a key export, an owner
 * invitation, a production key, an e-mail change, a second factor added or removed, a factor still
 * cooling down, an account without two-factor sign-in — is recorded and e-mailed to the account (and a
 * merchant action to its other owners, with an audit entry); a second refusal of the same kind within
 * 15 minutes is recorded but not e-mailed; a step-up that passes e-mails nothing. Real PostgreSQL; the
 * mail is the dev outbox.
 */
import { and, eq } from 'drizzle-orm';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createKeyForMember } from '@/lib/api-keys/create-key-for-member';
import { CHAINS } from '@/lib/chains/registry';
import { createFulfilmentRule } from '@/lib/contracts/create-rule';
import { setRuleEnabled } from '@/lib/contracts/list-contracts';
import { getDb } from '@/lib/db/client';
import { auditLog, merchantContracts, merchantMembers, stepUpRefusals, users } from '@/lib/db/schema';
import { newId, randomBase62 } from '@/lib/ids';
import { inviteMember } from '@/lib/merchants/invite-member';
import { payFromBalance } from '@/lib/payments/pay-from-balance';
import { swapHeldFunds } from '@/lib/swap/swap-held-funds';
import { withdrawFromMerchantWallet } from '@/lib/merchants/withdraw';
import { readOutbox } from '@/lib/notifications/outbox';
import { refundFromDashboard } from '@/lib/refunds/refund-from-dashboard';
import { createWalletsForUser } from '@/lib/keyring/create-wallets';
import { exportPrivateKey } from '@/lib/wallets/export-private-key';
import { newSendId } from '@/lib/wallets/preview-send';
import { sendFromWallet } from '@/lib/wallets/send-from-wallet';
import { appError, enrolTotp, newUser, uniqueEmail, userRow } from '@/test/accounts';
import { newMerchant } from '@/test/fixtures';
import type { RequestScope } from '@/test/next-request-scope';
import { startEmailChange } from './change-email';
import { REFUSAL_NOTICE_INTERVAL_MS, STEP_UP_ACTIONS, type StepUpAction } from './reporting-refusal';
import { verifyStepUp } from './step-up';
import { addPasskey } from './two-factor/add-passkey';
import { removeSecondFactor } from './two-factor/remove-second-factor';
import { startTotpEnrolment } from './two-factor/totp';
import { turnOnTotp } from './two-factor/turn-on-totp';

const scope = vi.hoisted((): RequestScope => ({ headers: new Headers(), cookies: new Map() }));
vi.mock('next/headers', async () => (await import('@/test/next-request-scope')).nextHeadersMock(scope));

const PIN = '739104';
/** The thief's guess: it must never reach a mailbox. */
const WRONG_PIN = '861357';
const USDC = CHAINS.POLYGON.tokens.find((t) => t.symbol === 'USDC')!;

let merchantId: string;
let owner: string;
let ownerEmail: string;
/** The merchant's other owner: hears of `owner`'s refused attempts. */
let coOwnerEmail: string;

beforeEach(async () => {
  scope.headers = new Headers();
  merchantId = (await newMerchant({ name: `Refusal Games ${randomBase62(4)}` })).id;
  const coOwner = await newUser();
  coOwnerEmail = (await userRow(coOwner)).email!;
  await getDb().insert(merchantMembers).values({ merchantId, userId: coOwner, role: 'owner' });
  owner = await newUser({ pin: PIN });
  await getDb().update(users).set({ emailVerifiedAt: new Date() }).where(eq(users.id, owner));
  ownerEmail = (await userRow(owner)).email!;
  await getDb().insert(merchantMembers).values({ merchantId, userId: owner, role: 'owner' });
  await enrolTotp(owner); // established: the two-factor requirement of a verified merchant is met
  walletId = undefined;
});

let walletId: string | undefined;
/** The owner's own EVM wallet (made on first use). */
async function ownWallet(): Promise<string> {
  walletId ??= (await getDb().transaction((tx) => createWalletsForUser(tx, owner)))[0]!.id;
  return walletId;
}

const refusalsMailed = (to: string, action: StepUpAction) =>
  readOutbox('email', to).filter((message) => message.subject?.endsWith(`a refused attempt to ${STEP_UP_ACTIONS[action]}`));

const refusalRows = (userId: string, action: StepUpAction) =>
  getDb()
    .select()
    .from(stepUpRefusals)
    .where(and(eq(stepUpRefusals.userId, userId), eq(stepUpRefusals.action, action)));

const withdraw = (proof: { pin?: string }) =>
  withdrawFromMerchantWallet({
    userId: owner,
    merchantId,
    mode: 'live',
    chain: 'POLYGON',
    tokenAddress: USDC.address,
    amount: '1',
    toAddress: privateKeyToAccount(generatePrivateKey()).address,
    ip: '203.0.113.66',
    ...proof,
  });

/** A registered contract (as registerContract stores it) with one mint function, for rule attempts. */
async function registeredContract(): Promise<string> {
  const id = newId('merchantContract');
  await getDb()
    .insert(merchantContracts)
    .values({
      id,
      merchantId,
      mode: 'live',
      chain: 'POLYGON',
      address: privateKeyToAccount(generatePrivateKey()).address,
      kind: 'erc721',
      functions: [
        { type: 'function', name: 'safeMint', inputs: [{ name: 'to', type: 'address' }], outputs: [], stateMutability: 'nonpayable' },
      ],
      hasUploadedAbi: true,
      createdBy: `member:${owner}`,
    });
  return id;
}

interface Family {
  action: StepUpAction;
  code: string;
  /** A merchant action: its other owners are e-mailed and its audit log records the refusal. */
  isMerchant: boolean;
  attempt: () => Promise<unknown>;
}

const families: Family[] = [
  {
    action: 'refund_to_other_address',
    code: 'step_up_required',
    isMerchant: true,
    attempt: () =>
      refundFromDashboard({
        userId: owner,
        merchantId,
        mode: 'live',
        chargeId: newId('charge'),
        toAddress: privateKeyToAccount(generatePrivateKey()).address,
        requestId: `rfq_${randomBase62(22)}`,
        ip: '203.0.113.66',
      }),
  },
  {
    action: 'fulfilment_rule_create',
    code: 'step_up_required',
    isMerchant: true,
    attempt: async () =>
      createFulfilmentRule({
        userId: owner,
        merchantId,
        mode: 'live',
        values: { contractId: await registeredContract(), function: 'safeMint(address)', bindings: [{ source: 'recipient' }] },
      }),
  },
  {
    action: 'fulfilment_rule_change',
    code: 'pin_incorrect',
    isMerchant: true,
    attempt: () =>
      setRuleEnabled({
        userId: owner,
        merchantId,
        mode: 'live',
        ruleId: newId('fulfilmentRule'),
        enabled: false,
        stepUp: { pin: WRONG_PIN },
      }),
  },
  { action: 'withdrawal', code: 'pin_incorrect', isMerchant: true, attempt: () => withdraw({ pin: WRONG_PIN }) },
  {
    action: 'member_invite',
    code: 'step_up_required',
    isMerchant: true,
    attempt: () => inviteMember({ userId: owner, merchantId, email: uniqueEmail('accomplice'), role: 'owner' }),
  },
  {
    action: 'production_key_create',
    code: 'step_up_required',
    isMerchant: true,
    attempt: () => createKeyForMember({ userId: owner, merchantId, mode: 'live', kind: 'secret', name: 'Thief key' }),
  },
  {
    action: 'private_key_export',
    code: 'step_up_required',
    isMerchant: false,
    attempt: async () =>
      exportPrivateKey({ userId: owner, walletId: await ownWallet(), ip: '203.0.113.66', userAgent: 'ThiefBrowser/1.0' }),
  },
  {
    action: 'wallet_send',
    code: 'pin_incorrect',
    isMerchant: false,
    attempt: async () => {
      await ownWallet();
      return sendFromWallet({
        userId: owner,
        sendId: newSendId(),
        chain: 'POLYGON',
        tokenAddress: USDC.address,
        toAddress: privateKeyToAccount(generatePrivateKey()).address,
        amount: '5',
        pin: WRONG_PIN,
      });
    },
  },
  {
    action: 'balance_payment',
    code: 'pin_incorrect',
    isMerchant: false,
    attempt: () => payFromBalance({ userId: owner, chargeId: newId('charge'), pin: WRONG_PIN }),
  },
  {
    action: 'held_funds_swap',
    code: 'invalid_request',
    isMerchant: false,
    // An empty PIN (malformed, param pin) is a refusal too.
    attempt: () =>
      swapHeldFunds({ userId: owner, chargeId: newId('charge'), pin: '', maxAmountIn: '1000', country: 'DE', complianceCountry: 'DE' }),
  },
  {
    action: 'email_change',
    code: 'pin_incorrect',
    isMerchant: false,
    attempt: () => startEmailChange({ userId: owner, newEmail: uniqueEmail('thief'), stepUp: { pin: WRONG_PIN } }),
  },
  {
    action: 'passkey_add',
    code: 'step_up_required',
    isMerchant: false,
    attempt: () => addPasskey({ userId: owner, name: 'Thief key', response: {}, proof: {} }),
  },
  {
    action: 'totp_off',
    code: 'pin_incorrect',
    isMerchant: false,
    attempt: () => removeSecondFactor({ userId: owner, factor: { kind: 'totp' }, proof: { pin: WRONG_PIN } }),
  },
];

describe('a refused step-up is e-mailed, once per account and action per 15 minutes', () => {
  it.each(families)('$action: the account is e-mailed what was tried; a second refusal is recorded, not e-mailed', async (family) => {
    expect((await appError(family.attempt())).code).toBe(family.code);
    expect((await appError(family.attempt())).code).toBe(family.code);

    const [mail, ...more] = refusalsMailed(ownerEmail, family.action);
    expect(more).toEqual([]);
    expect(mail!.text).toContain(`Someone signed in to your account tried to ${STEP_UP_ACTIONS[family.action]}`);
    expect(mail!.text).toMatch(/When: \d{4}-\d\d-\d\dT/);
    expect(mail!.text).toContain('Sign out everywhere');
    expect(mail!.text).toContain('change your PIN');
    expect(mail!.text).not.toContain(WRONG_PIN);
    expect(mail!.text).not.toContain(PIN);

    const rows = await refusalRows(owner, family.action);
    expect(rows.map((row) => [row.reason, row.notified]).sort()).toEqual([
      [family.code, false],
      [family.code, true],
    ]);

    const toOwners = refusalsMailed(coOwnerEmail, family.action);
    const audited = await getDb()
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.merchantId, merchantId), eq(auditLog.action, 'step_up.refused')));
    if (family.isMerchant) {
      expect(toOwners).toHaveLength(1);
      expect(toOwners[0]!.text).toContain(`Someone signed in as ${ownerEmail} tried to ${STEP_UP_ACTIONS[family.action]}`);
      expect(rows.every((row) => row.merchantId === merchantId)).toBe(true);
      expect(audited.map((entry) => entry.data)).toEqual([
        { action: family.action, reason: family.code },
        { action: family.action, reason: family.code },
      ]);
    } else {
      expect(toOwners).toEqual([]);
      expect(audited).toEqual([]);
    }
    // The owner's own mailbox holds no mail addressed to the other owners.
    expect(readOutbox('email', ownerEmail).filter((message) => message.text.includes(`signed in as ${ownerEmail}`))).toEqual([]);
  });

  it('turning on an authenticator app without a proof is e-mailed', async () => {
    const userId = await newUser({ pin: PIN });
    const { secret } = await startTotpEnrolment({ userId, label: 'test' });
    expect(secret).toBeTruthy();
    expect((await appError(turnOnTotp({ userId, code: '123456', proof: {} }))).code).toBe('step_up_required');
    const [mail] = refusalsMailed((await userRow(userId)).email!, 'totp_on');
    expect(mail!.text).toContain('no PIN, passkey or e-mail code was given');
  });

  it('a factor still cooling down, and an account without two-factor sign-in, are refusals too', async () => {
    // A fresh authenticator app (the established one removed): it does not count for a live withdrawal yet.
    await getDb().update(users).set({ totpEnabledAt: new Date() }).where(eq(users.id, owner));
    expect((await appError(withdraw({ pin: PIN }))).code).toBe('factor_cooling_down');
    const [cooling] = refusalsMailed(ownerEmail, 'withdrawal');
    expect(cooling!.text).toContain('was added less than');

    await getDb().update(users).set({ totpEnabledAt: null }).where(eq(users.id, owner));
    expect(
      (await appError(createKeyForMember({ userId: owner, merchantId, mode: 'live', kind: 'secret', name: 'k', stepUp: { pin: PIN } })))
        .code,
    ).toBe('two_factor_required');
    const [noFactor] = refusalsMailed(ownerEmail, 'production_key_create');
    expect(noFactor!.text).toContain('the account has no two-factor sign-in');
  });

  it('the IP and browser come from the request when the caller does not name them', async () => {
    scope.headers = new Headers({ 'user-agent': 'ThiefBrowser/2.0 (stolen cookie)' });
    expect(
      (await appError(inviteMember({ userId: owner, merchantId, email: uniqueEmail('x'), role: 'admin', ip: '198.51.100.23' }))).code,
    ).toBe('step_up_required');
    const [mail] = refusalsMailed(ownerEmail, 'member_invite');
    expect(mail!.text).toContain('From: 198.51.100.23');
    expect(mail!.text).toContain('Browser: ThiefBrowser/2.0 (stolen cookie)');
    const [row] = await refusalRows(owner, 'member_invite');
    expect(row).toMatchObject({ ip: '198.51.100.23', userAgent: 'ThiefBrowser/2.0 (stolen cookie)' });
  });

  it('after 15 minutes the next refusal is e-mailed again; another kind of action is e-mailed at once', async () => {
    const attempt = { action: 'withdrawal', merchantId, mode: 'live' } as const;
    const now = new Date();
    const refuse = (at: Date) => appError(verifyStepUp({ userId: owner, proof: {}, mode: 'live', attempt, now: at }));
    await refuse(now);
    await refuse(new Date(now.getTime() + 60_000));
    expect(refusalsMailed(ownerEmail, 'withdrawal')).toHaveLength(1);
    await refuse(new Date(now.getTime() + REFUSAL_NOTICE_INTERVAL_MS + 60_000));
    expect(refusalsMailed(ownerEmail, 'withdrawal')).toHaveLength(2);
    await appError(verifyStepUp({ userId: owner, proof: {}, mode: 'live', attempt: { ...attempt, action: 'refund' } }));
    expect(refusalsMailed(ownerEmail, 'refund')).toHaveLength(1);
  });

  it('a burst of concurrent refusals sends one e-mail', async () => {
    const attempt = { action: 'member_promote', merchantId, mode: 'live' } as const;
    await Promise.all(Array.from({ length: 6 }, () => appError(verifyStepUp({ userId: owner, proof: {}, mode: 'live', attempt }))));
    expect(await refusalRows(owner, 'member_promote')).toHaveLength(6);
    expect(refusalsMailed(ownerEmail, 'member_promote')).toHaveLength(1);
    expect(refusalsMailed(coOwnerEmail, 'member_promote')).toHaveLength(1);
  });

  it('a step-up that passes e-mails and records nothing, even when the action then fails for another reason', async () => {
    await verifyStepUp({ userId: owner, proof: { pin: PIN }, mode: 'live', attempt: { action: 'withdrawal', merchantId } });
    // The merchant wallet holds nothing: refused for the balance, after the step-up passed.
    expect((await appError(withdraw({ pin: PIN }))).code).toBe('insufficient_balance');
    expect(refusalsMailed(ownerEmail, 'withdrawal')).toEqual([]);
    expect(await refusalRows(owner, 'withdrawal')).toEqual([]);
  });
});
