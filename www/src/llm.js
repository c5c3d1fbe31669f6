// Streams a chat completion from any OpenAI-compatible endpoint (server-sent events):
// yields the text of each `choices[0].delta.content` until `data: [DONE]`.
export async function* streamChat({ baseUrl, model, apiKey, messages, signal }) {
  const headers = { "content-type": "application/json" };
  if (apiKey) headers.authorization = `Bearer ${apiKey}`;
  const res = await fetch(`${baseUrl.replace(/\/+$/, "")}/chat/completions`, {
    method: "POST",
    headers,
    body: JSON.stringify({ model: model || undefined, messages, stream: true }),
    signal,
  });
  if (!res.ok || !res.body) throw new Error(`${res.status} ${res.statusText} ${(await res.text().catch(() => "")).slice(0, 200)}`);
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buf += value;
    let nl;
    while ((nl = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, nl).trim();
      buf = buf.slice(nl + 1);
      if (!line.startsWith("data:")) continue;
      const data = line.slice(5).trim();
      if (data === "[DONE]") return;
      const delta = JSON.parse(data).choices?.[0]?.delta?.content;
      if (delta) yield delta;
    }
  }
}
