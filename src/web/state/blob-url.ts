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

/** Pictures several components show at once, fetched once: by URL, with how many components hold each. */
const shared = new Map<string, { readonly url: Promise<string | null>; users: number }>();

/**
 * As useBlobUrl, but every component asking for the same URL while one holds it shares one download and one
 * object URL (let go when the last lets go): a render several cards cut their pictures from.
 */
export function useSharedBlobUrl(api: Api, url: string | null): string | null {
  const [objectUrl, setObjectUrl] = useState<string | null>(null);
  useEffect(() => {
    if (!url) return;
    let entry = shared.get(url);
    if (!entry) {
      entry = {
        url: api.blob(url).then(
          ({ blob }) => URL.createObjectURL(blob),
          () => null,
        ),
        users: 0,
      };
      shared.set(url, entry);
    }
    const held = entry;
    held.users++;
    let live = true;
    void held.url.then((made) => {
      if (live) setObjectUrl(made);
    });
    return () => {
      live = false;
      if (--held.users > 0) return;
      shared.delete(url);
      void held.url.then((made) => made && URL.revokeObjectURL(made));
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
