/**
 * Sends e-mail over SMTP (nodemailer, SMTP_URL). Without SMTP_URL outside production the message goes
 * to the dev outbox (/dev/mailbox) and, in development, to the console.
 */
import nodemailer, { type Transporter } from 'nodemailer';
import { env } from '@/lib/env';
import { log } from '@/lib/log';
import { writeToOutbox } from './outbox';

let transporter: Transporter | undefined;

export async function sendEmail(message: { to: string; subject: string; text: string }): Promise<void> {
  const config = env();
  if (config.SMTP_URL) {
    transporter ??= nodemailer.createTransport(config.SMTP_URL);
    await transporter.sendMail({ from: config.MAIL_FROM, ...message });
    log.info('email sent', { to: message.to, subject: message.subject });
    return;
  }
  writeToOutbox({ channel: 'email', ...message });
  if (config.NODE_ENV === 'development') {
    // Development only: the console is the developer's mailbox. Never reached in production.
    console.log(`[dev mailbox] to ${message.to}: ${message.subject}\n${message.text}\n(see /dev/mailbox)`);
  }
}
