import { render } from '@react-email/render';
import type { ReactElement } from 'react';
import { CREDIT_COSTS, PRODUCT_NAME } from '@common/product.ts';
import { INVITE_DAYS } from '@common/teams.ts';
import { Button, Heading, Layout, LinkText, Paragraph } from './layout.tsx';

const TRAINING_COST = CREDIT_COSTS.training;

/**
 * Every message the product sends, by kind: its payload (what the outbox row keeps), its subject and its body
 * as a React component, rendered to HTML and plain text when it is sent (server/jobs/mail-sender.ts).
 */
export interface MailPayloads {
  /** Built-in accounts: a single-use link, valid one hour, to set a new password. */
  'password-reset': { token: string };
  /**
   * Built-in accounts: the link that confirms the sign-in address. `signUp`: sent to someone signed out (a new
   * account, or its link asked for again): the link signs them in and leads on into the app.
   */
  'verify-email': { token: string; signUp?: boolean; next?: string };
  /** Built-in accounts: someone tried to sign up with this address, which has an account already. */
  'sign-up-attempt': Record<string, never>;
  /** Built-in accounts: the password was changed on the profile or set by a reset link; `at` is when (ISO). */
  'password-changed': { at: string; by: 'profile' | 'reset' };
  'character-ready': { trainingId: string; characterName: string };
  'training-failed': { trainingId: string; characterName: string };
  /** A photo shoot ended (issue: photo shoots); `photos` is how many it made. */
  'shoot-ready': { shootId: string; pack: string; photos: number };
  /**
   * Issue 50 item 5: the balance fell below what the person's last paid action cost (`cost`), so they cannot do it
   * again; at most once per period.
   */
  'low-balance': { balance: number; cost: number };
  /** Teams (issue 49): a personal invite's single-use link (7 days), to the address the lead entered. */
  'team-invite': { token: string; team: string; dueDate: string | null };
  /** Teams: the lead's 'Remind' (at most once a day per person), to a member not done yet. */
  'team-reminder': { teamId: string; team: string; dueDate: string | null };
}
export type MailKind = keyof MailPayloads;

/** The account messages of built-in accounts, written by the auth provider (server/auth/local.ts). */
export type AccountMailKind = 'password-reset' | 'verify-email' | 'sign-up-attempt' | 'password-changed';
export type AccountMail = { [K in AccountMailKind]: { kind: K; payload: MailPayloads[K] } }[AccountMailKind];

/** Notifications: sent only while the person wants them, each with a one-click unsubscribe. */
export const NOTIFICATION_KINDS: readonly MailKind[] = ['character-ready', 'training-failed', 'shoot-ready', 'low-balance'];

export interface MailContext {
  /** Where links to this server's own routes point: PUBLIC_URL, or http://localhost:<PORT> locally. */
  baseUrl: string;
  /** Where links to the app's pages point: the SPA's origin (see mailAppUrl in server/runtime.ts). */
  appUrl: string;
  supportEmail: string;
  /** Notifications only. */
  unsubscribeUrl?: string;
}

/**
 * Text that goes into a header (the subject) on one line: control characters (CR, LF, tabs…) and line or
 * paragraph separators become spaces, so a name can never start a header of its own. HTML escaping is React's.
 */
export function oneLine(value: string, max = 120): string {
  const flat = value
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

const photosText = (n: number) => `${n} photo${n === 1 ? '' : 's'}`;

export const resetPasswordUrl = (ctx: MailContext, token: string) =>
  `${ctx.baseUrl}/api/auth/reset-password/${encodeURIComponent(token)}?callbackURL=${encodeURIComponent('/reset-password')}`;
/**
 * The page the confirmation link leads to; a sign-up's goes on from there to the deep link the visitor came
 * from, or the app's landing (product §2).
 */
export const verifyEmailUrl = (ctx: MailContext, { token, signUp, next }: MailPayloads['verify-email']) => {
  const page = signUp ? `/verify-email?next=${encodeURIComponent(next ?? '/app/create-image')}` : '/verify-email';
  return `${ctx.baseUrl}/api/auth/verify-email?token=${encodeURIComponent(token)}&callbackURL=${encodeURIComponent(page)}`;
};
export const signInUrl = (ctx: MailContext) => `${ctx.appUrl}/sign-in`;
export const forgotPasswordUrl = (ctx: MailContext) => `${ctx.appUrl}/forgot-password`;
export const createWithCharacterUrl = (ctx: MailContext, trainingId: string) =>
  `${ctx.appUrl}/app/create-image?character=${encodeURIComponent(trainingId)}`;
export const shootUrl = (ctx: MailContext, shootId: string) => `${ctx.appUrl}/app/photo-shoots/${encodeURIComponent(shootId)}`;

export function PasswordResetMail({ ctx, token }: { ctx: MailContext; token: string }) {
  const url = resetPasswordUrl(ctx, token);
  return (
    <Layout preview="Set a new password for your account" supportEmail={ctx.supportEmail}>
      <Heading>Reset your password</Heading>
      <Paragraph>Someone asked to reset the password of your {PRODUCT_NAME} account. Choose a new one here:</Paragraph>
      <Button href={url}>Set a new password</Button>
      <LinkText href={url} />
      <Paragraph muted>
        The link works once, for one hour. If you did not ask for it, ignore this e-mail: your password stays as it is.
      </Paragraph>
    </Layout>
  );
}

export function VerifyEmailMail({ ctx, ...payload }: { ctx: MailContext } & MailPayloads['verify-email']) {
  const url = verifyEmailUrl(ctx, payload);
  return (
    <Layout preview={`Confirm the address of your ${PRODUCT_NAME} account`} supportEmail={ctx.supportEmail}>
      <Heading>Confirm your e-mail address</Heading>
      <Paragraph>Welcome to {PRODUCT_NAME}! Confirm that this is your address, so that we can reach you about your account:</Paragraph>
      <Button href={url}>Confirm my address</Button>
      <LinkText href={url} />
      <Paragraph muted>The link works for 24 hours. If you did not create an account, ignore this e-mail.</Paragraph>
    </Layout>
  );
}

/** Sign-up answers the same for a taken address; its owner hears of the attempt, with the ways back in. */
export function SignUpAttemptMail({ ctx }: { ctx: MailContext }) {
  const signIn = signInUrl(ctx);
  const reset = forgotPasswordUrl(ctx);
  return (
    <Layout preview={`Someone tried to sign up to ${PRODUCT_NAME} with your address`} supportEmail={ctx.supportEmail}>
      <Heading>You already have an account</Heading>
      <Paragraph>
        Someone tried to create a {PRODUCT_NAME} account with this e-mail address, which already has one. If it was you, sign in instead:
      </Paragraph>
      <Button href={signIn}>Sign in</Button>
      <LinkText href={signIn} />
      <Paragraph>Forgot your password? Set a new one here:</Paragraph>
      <LinkText href={reset} />
      <Paragraph muted>If it was not you, ignore this e-mail: nothing was changed, and nobody can sign in without your password.</Paragraph>
    </Layout>
  );
}

/** Every account product tells its owner when the password changes, so a change they did not make is noticed. */
export function PasswordChangedMail({ ctx, at, by }: { ctx: MailContext } & MailPayloads['password-changed']) {
  const reset = forgotPasswordUrl(ctx);
  const when = new Date(at).toUTCString().replace('GMT', 'UTC');
  return (
    <Layout preview={`The password of your ${PRODUCT_NAME} account was changed.`} supportEmail={ctx.supportEmail}>
      <Heading>Your password was changed</Heading>
      <Paragraph>
        The password of your {PRODUCT_NAME} account was {by === 'reset' ? 'set with a reset link' : 'changed on your profile'} on {when}.
        Every other device was signed out.
      </Paragraph>
      <Paragraph>If this wasn't you, reset your password now:</Paragraph>
      <Button href={reset}>Reset your password</Button>
      <LinkText href={reset} />
    </Layout>
  );
}

export function CharacterReadyMail({ ctx, trainingId, characterName }: { ctx: MailContext } & MailPayloads['character-ready']) {
  const name = oneLine(characterName);
  const url = createWithCharacterUrl(ctx, trainingId);
  return (
    <Layout preview={`${name} has finished training.`} supportEmail={ctx.supportEmail} unsubscribeUrl={ctx.unsubscribeUrl}>
      <Heading>Your character {name} is ready</Heading>
      <Paragraph>Training has finished. Describe a scene and {name} appears in it: photos, portraits, professional headshots.</Paragraph>
      <Button href={url}>Create images with {name}</Button>
      <LinkText href={url} />
    </Layout>
  );
}

export function TrainingFailedMail({ ctx, characterName }: { ctx: MailContext } & MailPayloads['training-failed']) {
  const name = oneLine(characterName);
  const url = `${ctx.appUrl}/app/character-training`;
  return (
    <Layout
      preview={`${TRAINING_COST} credits are back in your account.`}
      supportEmail={ctx.supportEmail}
      unsubscribeUrl={ctx.unsubscribeUrl}
    >
      <Heading>
        Training of {name} failed — {TRAINING_COST} credits are back in your account
      </Heading>
      <Paragraph>
        We could not finish training {name}. Nothing was charged for it: the credits are in your balance again, ready for another try.
      </Paragraph>
      <Button href={url}>Try again</Button>
      <LinkText href={url} />
    </Layout>
  );
}

export function ShootReadyMail({ ctx, shootId, pack, photos }: { ctx: MailContext } & MailPayloads['shoot-ready']) {
  const packName = oneLine(pack);
  const url = shootUrl(ctx, shootId);
  return (
    <Layout preview={`${photosText(photos)} are waiting for you.`} supportEmail={ctx.supportEmail} unsubscribeUrl={ctx.unsubscribeUrl}>
      <Heading>
        Your {packName} photo shoot is ready ({photosText(photos)})
      </Heading>
      <Paragraph>Every photo of the shoot is done. Pick your favourites and download them.</Paragraph>
      <Button href={url}>See the photos</Button>
      <LinkText href={url} />
    </Layout>
  );
}

export const creditsUrl = (ctx: MailContext) => `${ctx.appUrl}/app/credits`;
const creditsText = (n: number) => `${n.toLocaleString('en-US')} ${n === 1 ? 'credit' : 'credits'}`;

export function LowBalanceMail({ ctx, balance, cost }: { ctx: MailContext } & MailPayloads['low-balance']) {
  const url = creditsUrl(ctx);
  return (
    <Layout preview={`${creditsText(balance)} left.`} supportEmail={ctx.supportEmail} unsubscribeUrl={ctx.unsubscribeUrl}>
      <Heading>Your balance is low: {creditsText(balance)} left</Heading>
      <Paragraph>
        Your last action cost {creditsText(cost)}, more than you have left. Top up with a one-off credit pack, or change your plan for more
        credits every month.
      </Paragraph>
      <Button href={url}>Top up</Button>
      <LinkText href={url} />
    </Layout>
  );
}

export const teamInviteUrl = (ctx: MailContext, token: string) => `${ctx.appUrl}/join/${encodeURIComponent(token)}`;
export const teamUrl = (ctx: MailContext, teamId: string) => `${ctx.appUrl}/app/teams/${encodeURIComponent(teamId)}`;
const dueText = (dueDate: string | null) => (dueDate ? ` by ${dueDate}` : '');

export function TeamInviteMail({ ctx, token, team, dueDate }: { ctx: MailContext } & MailPayloads['team-invite']) {
  const name = oneLine(team);
  const url = teamInviteUrl(ctx, token);
  return (
    <Layout preview={`Your headshot for ${name}${dueText(dueDate)}.`} supportEmail={ctx.supportEmail}>
      <Heading>{name} invites you to get your headshot</Heading>
      <Paragraph>
        {name} is collecting headshots of its people in one look{dueText(dueDate)}. Upload a few photos of yourself, and the team pays for
        your training and your photo shoot.
      </Paragraph>
      <Button href={url}>Join {name}</Button>
      <LinkText href={url} />
      <Paragraph>The link works once, for {INVITE_DAYS} days. If it has expired, ask your team lead to send it again.</Paragraph>
    </Layout>
  );
}

export function TeamReminderMail({ ctx, teamId, team, dueDate }: { ctx: MailContext } & MailPayloads['team-reminder']) {
  const name = oneLine(team);
  const url = teamUrl(ctx, teamId);
  return (
    <Layout preview={`Your headshot for ${name} is not done yet.`} supportEmail={ctx.supportEmail}>
      <Heading>A reminder from {name}</Heading>
      <Paragraph>Your team headshot is not done yet{dueText(dueDate)}. Pick up where you left off.</Paragraph>
      <Button href={url}>Continue</Button>
      <LinkText href={url} />
    </Layout>
  );
}

/** Subject and body of a message of `kind`. */
export function composeMail<K extends MailKind>(
  kind: K,
  payload: MailPayloads[K],
  ctx: MailContext,
): { subject: string; element: ReactElement } {
  const p = payload as MailPayloads[MailKind];
  switch (kind) {
    case 'password-reset':
      return {
        subject: `Reset your ${PRODUCT_NAME} password`,
        element: <PasswordResetMail ctx={ctx} token={(p as MailPayloads['password-reset']).token} />,
      };
    case 'verify-email':
      return {
        subject: 'Confirm your e-mail address',
        element: <VerifyEmailMail ctx={ctx} {...(p as MailPayloads['verify-email'])} />,
      };
    case 'sign-up-attempt':
      return { subject: `Someone tried to sign up with your address`, element: <SignUpAttemptMail ctx={ctx} /> };
    case 'password-changed':
      return {
        subject: `Your ${PRODUCT_NAME} password was changed`,
        element: <PasswordChangedMail ctx={ctx} {...(p as MailPayloads['password-changed'])} />,
      };
    case 'character-ready': {
      const c = p as MailPayloads['character-ready'];
      return { subject: `Your character ${oneLine(c.characterName)} is ready`, element: <CharacterReadyMail ctx={ctx} {...c} /> };
    }
    case 'training-failed': {
      const c = p as MailPayloads['training-failed'];
      return {
        subject: `Training of ${oneLine(c.characterName)} failed — ${TRAINING_COST} credits are back in your account`,
        element: <TrainingFailedMail ctx={ctx} {...c} />,
      };
    }
    case 'shoot-ready': {
      const s = p as MailPayloads['shoot-ready'];
      return {
        subject: `Your ${oneLine(s.pack)} photo shoot is ready (${photosText(s.photos)})`,
        element: <ShootReadyMail ctx={ctx} {...s} />,
      };
    }
    case 'low-balance': {
      const l = p as MailPayloads['low-balance'];
      return {
        subject: `Your ${PRODUCT_NAME} balance is low: ${creditsText(l.balance)} left`,
        element: <LowBalanceMail ctx={ctx} {...l} />,
      };
    }
    case 'team-invite': {
      const t = p as MailPayloads['team-invite'];
      return { subject: `${oneLine(t.team)} invites you to get your headshot`, element: <TeamInviteMail ctx={ctx} {...t} /> };
    }
    case 'team-reminder': {
      const t = p as MailPayloads['team-reminder'];
      return { subject: `Reminder: your headshot for ${oneLine(t.team)}`, element: <TeamReminderMail ctx={ctx} {...t} /> };
    }
    default:
      throw new Error(`unknown mail kind ${String(kind)}`);
  }
}

/** The message rendered: subject, HTML and its plain-text twin. */
export async function renderMail<K extends MailKind>(kind: K, payload: MailPayloads[K], ctx: MailContext) {
  const { subject, element } = composeMail(kind, payload, ctx);
  const [html, text] = await Promise.all([
    render(element),
    render(element, { plainText: true, htmlToTextOptions: { selectors: [{ selector: 'h1', options: { uppercase: false } }] } }),
  ]);
  return { subject: oneLine(subject, 200), html, text };
}
