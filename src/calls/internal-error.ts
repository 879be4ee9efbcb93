/**
 * What a result says of a failure the code did not foresee. The error's own text helps whoever reads it (a model
 * retrying, an integrator), but may name the server's folders (`ENOENT: … open '/srv/…/a.psd'`), which a service
 * shared by many people must not show: absolute paths are cut to their last part. The whole error goes to the
 * server's log (`onInternalError`).
 */
export function internalMessage(err: unknown, context = ''): string {
  const text = err instanceof Error ? err.message : String(err);
  return `内部错误：${context}${withoutFolders(text)}`;
}

/** `text` with every absolute path (POSIX or Windows, or a file: URL) reduced to its last part. */
export function withoutFolders(text: string): string {
  // Not inside a word or a web address (`http://host/v1` stays whole).
  return text.replace(
    /(?<![\w:/.])(?:file:\/\/)?(?:[A-Za-z]:)?(?:[\\/][^\\/\s'"`()<>,;]+)+[\\/]?/g,
    (path) => {
      const parts = path.split(/[\\/]/).filter((p) => p !== '' && !/^[A-Za-z]:$/.test(p) && p !== 'file:');
      return parts.length > 1 ? `…/${parts[parts.length - 1]}` : path;
    },
  );
}
