import { useState, type FormEvent } from 'react';
import { Download, ShieldCheck, Trash2 } from 'lucide-react';
import { ACCOUNT_TEXTS } from '@common/account';
import { TEXT_LIMITS } from '@common/text';
import { ApiError, errorMessage } from '@/backend/api-error';
import { Banner } from '@/components/ui/banner';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { Dialog } from '@/components/ui/dialog';
import { Input } from '@/components/ui/input';

export interface YourDataCardProps {
  email: string | null;
  onDownloadData: () => Promise<void>;
  /**
   * Built-in accounts: deletes the account after the typed e-mail matched (the server checks it again) and with
   * the current password, which only the server checks.
   */
  onDeleteAccount: (email: string, password: string) => Promise<void>;
  /** Hosted build: the identity provider's own account deletion replaces the dialog. */
  onOpenAccountDeletion?: () => void;
}

const sameEmail = (a: string, b: string | null) => !!b && a.trim().toLowerCase() === b.trim().toLowerCase();

/** The profile's 'Your Data' card: 'Download my data' and 'Delete account'. */
export function YourDataCard({ email, onDownloadData, onDeleteAccount, onOpenAccountDeletion }: YourDataCardProps) {
  const [downloading, setDownloading] = useState(false);
  const [downloadError, setDownloadError] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [typed, setTyped] = useState('');
  const [password, setPassword] = useState('');
  const [deleting, setDeleting] = useState(false);
  const [deleteError, setDeleteError] = useState<string | null>(null);
  const [passwordError, setPasswordError] = useState<string | null>(null);

  async function download() {
    setDownloading(true);
    setDownloadError(null);
    try {
      await onDownloadData();
    } catch (err) {
      setDownloadError(errorMessage(err));
    } finally {
      setDownloading(false);
    }
  }

  function openDelete() {
    if (onOpenAccountDeletion) return onOpenAccountDeletion();
    setTyped('');
    setPassword('');
    setDeleteError(null);
    setPasswordError(null);
    setConfirming(true);
  }

  async function confirmDelete(e: FormEvent) {
    e.preventDefault();
    if (!sameEmail(typed, email)) return setDeleteError(ACCOUNT_TEXTS.emailMismatch);
    setDeleting(true);
    setDeleteError(null);
    setPasswordError(null);
    try {
      await onDeleteAccount(typed.trim(), password);
      // The page is replaced by the sign-in page; the dialog stays busy until then.
    } catch (err) {
      // A wrong password, or too many of them, is said under the password; anything else under the address.
      if (err instanceof ApiError && (err.code === 'wrong_password' || err.status === 429)) setPasswordError(err.message);
      else setDeleteError(errorMessage(err));
      setDeleting(false);
    }
  }

  return (
    <Card className="p-6">
      <h2 className="flex items-center gap-2 text-sm font-semibold uppercase tracking-wide text-fg-muted">
        <ShieldCheck className="size-4 text-brand" aria-hidden />
        Your Data
      </h2>
      <div className="mt-4 grid gap-5 md:grid-cols-2">
        <div className="flex flex-col gap-3">
          <p className="text-sm text-fg-muted">{ACCOUNT_TEXTS.downloadHelp}</p>
          <Button variant="outline" className="w-full sm:w-fit" busy={downloading} onClick={() => void download()}>
            <Download className="size-4" aria-hidden />
            {ACCOUNT_TEXTS.downloadTitle}
          </Button>
          {downloadError && <Banner tone="red">{downloadError}</Banner>}
        </div>
        <div className="flex flex-col gap-3">
          <p className="text-sm text-fg-muted">{ACCOUNT_TEXTS.deleteWarning}</p>
          <Button variant="outline" className="w-full border-danger-border text-danger hover:bg-danger-soft sm:w-fit" onClick={openDelete}>
            <Trash2 className="size-4" aria-hidden />
            {ACCOUNT_TEXTS.deleteTitle}
          </Button>
        </div>
      </div>

      <Dialog
        open={confirming}
        onOpenChange={(open) => !deleting && setConfirming(open)}
        title={ACCOUNT_TEXTS.deleteTitle}
        description={ACCOUNT_TEXTS.deleteWarning}
      >
        <form onSubmit={(e) => void confirmDelete(e)} className="flex flex-col gap-4" noValidate>
          <Input
            label={ACCOUNT_TEXTS.deletePrompt}
            type="email"
            autoComplete="off"
            placeholder={email ?? undefined}
            maxLength={TEXT_LIMITS.email}
            value={typed}
            onChange={(e) => {
              setTyped(e.target.value);
              setDeleteError(null);
            }}
            error={deleteError}
            autoFocus
          />
          <Input
            label={ACCOUNT_TEXTS.deletePasswordPrompt}
            name="current-password"
            type="password"
            autoComplete="current-password"
            maxLength={TEXT_LIMITS.passwordMax}
            value={password}
            onChange={(e) => {
              setPassword(e.target.value);
              setPasswordError(null);
            }}
            error={passwordError}
          />
          <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
            <Button variant="outline" onClick={() => setConfirming(false)} disabled={deleting}>
              Cancel
            </Button>
            <Button type="submit" variant="danger" busy={deleting} disabled={!typed.trim() || !password}>
              <Trash2 className="size-4" aria-hidden />
              Delete my account
            </Button>
          </div>
        </form>
      </Dialog>
    </Card>
  );
}
