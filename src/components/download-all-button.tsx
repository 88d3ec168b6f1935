import { useState, type ReactNode } from 'react';
import { SHOOT_TEXTS } from '@common/photo-shoots';
import { errorMessage } from '@/backend/api-error';
import { useBackend } from '@/backend/backend-context';
import { Button } from '@/components/ui/button';
import { useToast } from '@/components/ui/toast';
import { downloadFile } from '@/lib/download-file';

/** 'Download all': a ZIP our server streams (a shoot's photos, or the favourites). */
export function DownloadAllButton({ path, fallbackName, icon }: { path: string; fallbackName: string; icon?: ReactNode }) {
  const { api } = useBackend();
  const toast = useToast();
  const [busy, setBusy] = useState(false);
  const download = async () => {
    setBusy(true);
    try {
      await downloadFile(api, path, fallbackName);
    } catch (err) {
      toast.show(`Download failed: ${errorMessage(err)}`, { tone: 'error' });
    } finally {
      setBusy(false);
    }
  };
  return (
    <Button variant="outline" busy={busy} onClick={() => void download()}>
      {icon}
      {SHOOT_TEXTS.downloadAll}
    </Button>
  );
}
