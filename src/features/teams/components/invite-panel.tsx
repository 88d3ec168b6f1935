import { useState, type ChangeEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { INVITE_ROW_TEXT, type InviteReportRow } from '@common/teams';
import { errorMessage } from '@/backend/api-error';
import { useBackend } from '@/backend/backend-context';
import { Button } from '@/components/ui/button';
import { Input, Textarea } from '@/components/ui/input';
import { useToast } from '@/components/ui/toast';
import { createOpenLink, importInvites, resendInvite, revokeInvite, teamKey, useTeamInvites } from '../api';

const joinUrl = (token: string) => `${window.location.origin}/join/${encodeURIComponent(token)}`;

/** Invites: paste addresses or upload a CSV (a row-by-row report before anything is sent), and open links. */
export function InvitePanel({ teamId }: { teamId: string }) {
  const { api } = useBackend();
  const qc = useQueryClient();
  const toast = useToast();
  const invites = useTeamInvites(teamId, true);
  const [text, setText] = useState('');
  const [report, setReport] = useState<InviteReportRow[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [link, setLink] = useState({ domain: '', limit: '', expires: '' });

  const run = async (key: string, fn: () => Promise<void>) => {
    setBusy(key);
    setError(null);
    try {
      await fn();
      await qc.invalidateQueries({ queryKey: teamKey(teamId) });
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(null);
    }
  };
  const readFile = async (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0];
    if (file) setText(await file.text());
    setReport(null);
  };
  const good = report?.filter((r) => r.outcome === 'invite').length ?? 0;

  return (
    <section className="flex flex-col gap-4" aria-label="Invites">
      <h2 className="text-lg font-semibold text-fg">Invite people</h2>
      <Textarea
        label="E-mail addresses, or a CSV with email, name and title"
        rows={5}
        value={text}
        onChange={(e) => {
          setText(e.target.value);
          setReport(null);
        }}
        placeholder={'email,name,title\njane@acme.com,Jane Doe,Designer'}
        error={error}
      />
      <div className="flex flex-wrap items-center gap-2">
        <label className="cursor-pointer text-sm text-brand underline">
          Upload a CSV file
          <input type="file" accept=".csv,text/csv,text/plain" className="sr-only" onChange={(e) => void readFile(e)} />
        </label>
        <Button
          variant="outline"
          busy={busy === 'check'}
          disabled={!text.trim()}
          onClick={() => void run('check', async () => setReport((await importInvites(api, teamId, text, false)).rows))}
        >
          Check the list
        </Button>
        {report && (
          <Button
            busy={busy === 'send'}
            disabled={good === 0}
            onClick={() =>
              void run('send', async () => {
                const { sent } = await importInvites(api, teamId, text, true);
                toast.show(`${sent} invite${sent === 1 ? '' : 's'} sent.`);
                setReport(null);
                setText('');
              })
            }
          >
            Send {good} invite{good === 1 ? '' : 's'}
          </Button>
        )}
      </div>
      {report && (
        <div className="max-h-72 overflow-auto rounded-lg border border-border">
          <table className="w-full text-left text-sm">
            <thead className="bg-bg-subtle text-xs text-fg-muted">
              <tr>
                <th className="px-3 py-2">Line</th>
                <th className="px-3 py-2">E-mail</th>
                <th className="px-3 py-2">Outcome</th>
              </tr>
            </thead>
            <tbody>
              {report.map((r) => (
                <tr key={r.line + r.email} className="border-t border-border">
                  <td className="px-3 py-1.5 text-fg-muted">{r.line}</td>
                  <td className="max-w-48 truncate px-3 py-1.5">{r.email || '—'}</td>
                  <td className={r.outcome === 'invite' ? 'px-3 py-1.5 text-success' : 'px-3 py-1.5 text-danger'}>
                    {INVITE_ROW_TEXT[r.outcome]}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      <h3 className="font-semibold text-fg">Open link</h3>
      <div className="grid gap-3 sm:grid-cols-3">
        <Input
          label="Only addresses at (optional)"
          placeholder="acme.com"
          value={link.domain}
          onChange={(e) => setLink({ ...link, domain: e.target.value })}
        />
        <Input
          label="Usage limit (optional)"
          inputMode="numeric"
          value={link.limit}
          onChange={(e) => setLink({ ...link, limit: e.target.value.replace(/\D/g, '') })}
        />
        <Input
          label="Expires on (optional)"
          type="date"
          value={link.expires}
          onChange={(e) => setLink({ ...link, expires: e.target.value })}
        />
      </div>
      <Button
        variant="outline"
        className="w-fit"
        busy={busy === 'link'}
        onClick={() =>
          void run('link', async () => {
            await createOpenLink(api, teamId, {
              domain: link.domain.trim() || null,
              usage_limit: link.limit ? Number(link.limit) : null,
              expires_at: link.expires ? new Date(`${link.expires}T23:59:59`).toISOString() : null,
            });
            setLink({ domain: '', limit: '', expires: '' });
          })
        }
      >
        Create open link
      </Button>

      <ul className="divide-y divide-border rounded-lg border border-border text-sm">
        {(invites.data ?? []).map((i) => (
          <li key={i.id} className="flex flex-wrap items-center gap-2 p-3">
            <div className="min-w-0 flex-1">
              {i.kind === 'open' ? (
                <>
                  <p className="truncate font-mono text-xs">{joinUrl(i.token!)}</p>
                  <p className="text-xs text-fg-muted">
                    Open link · used {i.use_count}
                    {i.usage_limit !== null && ` of ${i.usage_limit}`}
                    {i.domain && ` · @${i.domain} only`}
                    {i.expires_at && ` · expires ${i.expires_at.slice(0, 10)}`}
                  </p>
                </>
              ) : (
                <>
                  <p className="truncate">{i.name ? `${i.name} <${i.email}>` : i.email}</p>
                  <p className="text-xs text-fg-muted">Personal invite{i.expired ? ' · expired' : ''}</p>
                </>
              )}
            </div>
            {i.revoked ? (
              <span className="text-xs text-fg-muted">Revoked</span>
            ) : (
              <>
                {i.kind === 'open' ? (
                  <Button
                    size="sm"
                    variant="outline"
                    onClick={() => void navigator.clipboard?.writeText(joinUrl(i.token!)).then(() => toast.show('Link copied.'))}
                  >
                    Copy link
                  </Button>
                ) : (
                  <Button
                    size="sm"
                    variant="outline"
                    busy={busy === `s:${i.id}`}
                    onClick={() => void run(`s:${i.id}`, async () => void (await resendInvite(api, teamId, i.id)))}
                  >
                    Re-send
                  </Button>
                )}
                <Button
                  size="sm"
                  variant="ghost"
                  busy={busy === `v:${i.id}`}
                  onClick={() => void run(`v:${i.id}`, async () => void (await revokeInvite(api, teamId, i.id)))}
                >
                  Revoke
                </Button>
              </>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
