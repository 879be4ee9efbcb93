/**
 * Images and downloads fetched with the bearer token and shown through object URLs: with a token in use, a
 * plain `<img src>` or link would be refused (and the token must never go into a URL).
 */
import { useEffect, useState } from 'preact/hooks';
import type { Api } from '../api/client.js';

export function useBlobUrl(api: Api, url: string | null): string | null {
  const [objectUrl, setObjectUrl] = useState<string | null>(null);
  useEffect(() => {
    if (!url) return;
    let live = true;
    let made: string | null = null;
    api
      .blob(url)
      .then(({ blob }) => {
        if (!live) return;
        made = URL.createObjectURL(blob);
        setObjectUrl(made);
      })
      .catch(() => undefined);
    return () => {
      live = false;
      if (made) URL.revokeObjectURL(made);
    };
  }, [api, url]);
  return objectUrl;
}

/** Saves a session file through a temporary object URL. */
export async function download(api: Api, url: string, filename: string): Promise<void> {
  const { blob } = await api.blob(url);
  const objectUrl = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = objectUrl;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(objectUrl), 10_000);
}
