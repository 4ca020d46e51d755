/** Shows only the scheme and host of a URL: RPC URLs often carry an API key in the path or query. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    const hidden = u.pathname !== '/' || u.search !== '' || u.username !== '';
    return `${u.protocol}//${u.host}${hidden ? '/…' : ''}`;
  } catch {
    return '(invalid url)';
  }
}
