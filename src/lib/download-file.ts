import type { ApiPort } from '@/backend/port';

/** Saves the file a GET of `path` on our server answers, under the name the server gives it (else `fallbackName`). */
export async function downloadFile(api: ApiPort, path: string, fallbackName: string): Promise<void> {
  const { blob, fileName } = await api.download(path);
  const url = URL.createObjectURL(blob);
  try {
    const link = document.createElement('a');
    link.href = url;
    link.download = fileName ?? fallbackName;
    document.body.append(link);
    link.click();
    link.remove();
  } finally {
    // The click has handed the file to the browser; the object URL can go a little later.
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }
}
