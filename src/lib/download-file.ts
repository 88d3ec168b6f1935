import { ApiError } from '@/backend/api-error';

/** The file name the server chose, from its Content-Disposition header. */
function fileNameOf(res: Response, fallback: string): string {
  const match = /filename="?([^";]+)"?/i.exec(res.headers.get('content-disposition') ?? '');
  return match?.[1] ?? fallback;
}

/**
 * Saves the file a GET of `path` answers under the name the server gives it (else `fallbackName`).
 * The session cookie authenticates it, as for every local-mode call.
 */
export async function downloadFile(path: string, fallbackName: string): Promise<void> {
  const res = await fetch(path, { credentials: 'same-origin' });
  if (!res.ok) throw await ApiError.from(res);
  const url = URL.createObjectURL(await res.blob());
  try {
    const link = document.createElement('a');
    link.href = url;
    link.download = fileNameOf(res, fallbackName);
    document.body.append(link);
    link.click();
    link.remove();
  } finally {
    // The click has handed the file to the browser; the object URL can go a little later.
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }
}
