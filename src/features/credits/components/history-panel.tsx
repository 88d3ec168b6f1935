import { useId, useState } from 'react';
import { Link } from 'react-router';
import { Download, ReceiptText } from 'lucide-react';
import { LEDGER_ENTRIES, LEDGER_ENTRY_LABELS, isLedgerEntry, ledgerLinkHref, type LedgerEntry, type LedgerLine } from '@common/credits';
import { Banner } from '@/components/ui/banner';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { Spinner } from '@/components/ui/spinner';
import { EmptyState, ErrorState } from '@/components/ui/states';
import { cn } from '@/lib/cn';
import { useCreditHistory, useDownloadCsv } from '../api';
import { formatAmount, formatCredits, formatWhen } from '../lib/format';
import { CREDITS_TEXTS } from '../lib/messages';

const LINK_LABELS = { image: 'Image', shoot: 'Shoot', character: 'Character' } as const;

function LineLink({ line }: { line: LedgerLine }) {
  const href = ledgerLinkHref(line.link);
  if (!href || !line.link) return null;
  return (
    <Link to={href} className="font-medium text-brand underline-offset-2 hover:underline">
      {LINK_LABELS[line.link.type]}
    </Link>
  );
}

/**
 * Every ledger line, newest first, 50 at a time ('Load more'), filtered by kind, and 'Download CSV' of the same
 * selection. On a phone the date sits under what it was, and the balance after under the amount.
 */
export function HistoryPanel() {
  const [kind, setKind] = useState<LedgerEntry | undefined>(undefined);
  const history = useCreditHistory(kind);
  const csv = useDownloadCsv(kind);
  const filterId = useId();
  const lines = history.data?.pages.flatMap((p) => p.lines) ?? [];

  return (
    <Card className="flex flex-col gap-4 p-5 md:p-6">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <h2 className="text-lg font-semibold">History</h2>
        <div className="flex w-full items-end gap-2 sm:w-auto">
          <div className="flex min-w-0 flex-1 flex-col gap-1 sm:flex-none">
            <label htmlFor={filterId} className="text-xs font-medium text-fg-muted">
              Kind
            </label>
            <select
              id={filterId}
              value={kind ?? 'all'}
              onChange={(e) => setKind(isLedgerEntry(e.target.value) ? e.target.value : undefined)}
              className="h-9 w-full rounded-md border border-border-strong bg-bg px-2 text-sm focus:border-brand focus:outline-none focus:ring-2 focus:ring-brand/20"
            >
              <option value="all">All kinds</option>
              {LEDGER_ENTRIES.map((entry) => (
                <option key={entry} value={entry}>
                  {LEDGER_ENTRY_LABELS[entry]}
                </option>
              ))}
            </select>
          </div>
          <Button variant="outline" className="h-9" busy={csv.busy} onClick={() => void csv.download()}>
            <Download className="size-4" aria-hidden />
            Download CSV
          </Button>
        </div>
      </div>
      {csv.error && <Banner tone="red">{csv.error}</Banner>}

      {history.isPending ? (
        <div className="grid h-40 place-items-center">
          <Spinner label="Loading your credit history" />
        </div>
      ) : history.isError ? (
        <ErrorState title={CREDITS_TEXTS.historyError} onRetry={() => void history.refetch()} />
      ) : lines.length === 0 ? (
        <EmptyState
          icon={<ReceiptText className="size-8" aria-hidden />}
          title={kind ? `No ${LEDGER_ENTRY_LABELS[kind].toLowerCase()} lines yet` : 'No credit history yet'}
          description="Credits you receive and spend will be listed here."
        />
      ) : (
        <>
          <div className="-mx-5 overflow-x-auto md:mx-0">
            <table className="w-full text-sm" data-testid="credit-history">
              <caption className="sr-only">Credit history, newest first</caption>
              <thead className="border-b border-border text-left text-xs uppercase tracking-wide text-fg-muted">
                <tr>
                  <th scope="col" className="hidden px-3 py-2 font-medium md:table-cell">
                    When
                  </th>
                  <th scope="col" className="px-5 py-2 font-medium md:px-3">
                    What
                  </th>
                  <th scope="col" className="px-5 py-2 text-right font-medium md:px-3">
                    Amount
                  </th>
                  <th scope="col" className="hidden px-3 py-2 text-right font-medium md:table-cell">
                    Balance after
                  </th>
                  <th scope="col" className="hidden px-3 py-2 font-medium md:table-cell">
                    Link
                  </th>
                </tr>
              </thead>
              <tbody>
                {lines.map((line) => (
                  <tr key={line.id} className="border-b border-border last:border-0 align-top">
                    <td className="hidden whitespace-nowrap px-3 py-2.5 text-fg-muted md:table-cell">{formatWhen(line.created_at)}</td>
                    <td className="px-5 py-2.5 md:px-3">
                      <p className="font-medium">{LEDGER_ENTRY_LABELS[line.kind]}</p>
                      <p className="break-words text-xs text-fg-muted">{line.reason}</p>
                      <p className="mt-0.5 flex flex-wrap gap-x-2 text-xs text-fg-muted md:hidden">
                        <span>{formatWhen(line.created_at)}</span>
                        <LineLink line={line} />
                      </p>
                    </td>
                    <td className="whitespace-nowrap px-5 py-2.5 text-right md:px-3">
                      <span className={cn('font-semibold tabular-nums', line.amount > 0 ? 'text-success' : 'text-fg')}>
                        {formatAmount(line.amount)}
                      </span>
                      <p className="text-xs tabular-nums text-fg-muted md:hidden">Balance {formatCredits(line.balance_after)}</p>
                    </td>
                    <td className="hidden px-3 py-2.5 text-right tabular-nums md:table-cell">{formatCredits(line.balance_after)}</td>
                    <td className="hidden px-3 py-2.5 md:table-cell">
                      <LineLink line={line} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {history.isFetchNextPageError && <Banner tone="red">{CREDITS_TEXTS.historyError}</Banner>}
          {history.hasNextPage && (
            <Button
              variant="outline"
              className="self-center"
              busy={history.isFetchingNextPage}
              onClick={() => void history.fetchNextPage()}
            >
              Load more
            </Button>
          )}
        </>
      )}
    </Card>
  );
}
