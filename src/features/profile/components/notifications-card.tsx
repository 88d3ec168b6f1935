import { Bell } from 'lucide-react';
import { Banner } from '@/components/ui/banner';
import { Card } from '@/components/ui/card';
import { cn } from '@/lib/cn';
import { useNotificationPreferences, useSetNotificationPreferences } from '../api';
import { CardTitle } from './card-title';

export const NOTIFICATIONS_LABEL = 'E-mail me when a character or a photo shoot is ready';

/** The profile's e-mail switch (on by default; every such e-mail also has a one-click unsubscribe). */
export function NotificationsCard() {
  const prefs = useNotificationPreferences();
  const save = useSetNotificationPreferences();
  const on = save.isPending ? Boolean(save.variables?.email_notifications) : Boolean(prefs.data?.email_notifications);
  const disabled = prefs.isPending || prefs.isError || save.isPending;
  return (
    <Card className="p-6">
      <CardTitle icon={<Bell className="size-4 text-brand" aria-hidden />}>Notifications</CardTitle>
      <label className="mt-4 flex cursor-pointer items-center justify-between gap-4">
        <span className="text-sm text-fg">{NOTIFICATIONS_LABEL}</span>
        <button
          type="button"
          role="switch"
          aria-checked={on}
          aria-label={NOTIFICATIONS_LABEL}
          disabled={disabled}
          onClick={() => save.mutate({ email_notifications: !on })}
          className={cn(
            'relative inline-flex h-6 w-11 shrink-0 items-center rounded-full transition-colors disabled:opacity-50',
            on ? 'bg-brand' : 'bg-border-strong',
          )}
        >
          <span
            className={cn(
              'inline-block size-5 rounded-full bg-white shadow transition-transform',
              on ? 'translate-x-5' : 'translate-x-0.5',
            )}
          />
        </button>
      </label>
      <p className="mt-2 text-xs text-fg-muted">Also when your credits run low, at most once a month.</p>
      {(prefs.isError || save.isError) && (
        <Banner tone="red" className="mt-4">
          Could not {save.isError ? 'save' : 'load'} this setting. Please try again.
        </Banner>
      )}
    </Card>
  );
}
