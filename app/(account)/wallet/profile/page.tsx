import { redirect } from 'next/navigation';

/** The wallet's Profile tab is the account profile (e-mail, sign-in methods, merchant upgrade). */
export default function WalletProfilePage(): never {
  redirect('/account/profile');
}
