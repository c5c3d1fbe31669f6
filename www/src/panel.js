// The memory panel: what is remembered and why it was recalled (seed 002's transparency).
const $ = (id) => document.getElementById(id);
const DAY = 86_400_000;

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else if (k.startsWith("data-")) e.setAttribute(k, v);
    else if (k === "onclick") e.addEventListener("click", v);
    else e[k] = v;
  }
  e.append(...children.filter((c) => c !== null && c !== undefined));
  return e;
}

function ago(t, now) {
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86400) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86400)} d ago`;
}

/** importance × 0.5^(age / 30 days): the default decay the core applies at recall. */
function weight(r, now) {
  return r.importance * 0.5 ** ((now - r.updatedAt) / (30 * DAY));
}

const f2 = (x) => (typeof x === "number" ? x.toFixed(2) : "–");

/** The profile the core derives from the memories: who, how they want answers, facts, rules, privacy. */
function renderProfile(p) {
  const v = (x) => (x ? x.value : null);
  const rows = [
    ["Name", v(p.basic.name)],
    ["Language", v(p.basic.language)],
    ["Time zone", v(p.basic.timezone)],
    ["Answers", [v(p.behaviour.detail), v(p.behaviour.tone) && `${v(p.behaviour.tone)} tone`].filter(Boolean).join(", ") || null],
    ["Talks about", p.behaviour.topics.map((t) => t.name).join(", ") || null],
    ["Visits", p.behaviour.visits.sessions ? `${p.behaviour.visits.sessions} ${p.behaviour.visits.sessions === 1 ? "session" : "sessions"} on ${p.behaviour.visits.activeDays} ${p.behaviour.visits.activeDays === 1 ? "day" : "days"}` : null],
    ["Retention", p.privacy.retentionDays ? `${p.privacy.retentionDays} days` : "kept until forgotten"],
  ].filter(([, x]) => x);
  const facts = p.knowledge.facts.slice(0, 8);
  const known = p.basic.name || facts.length || p.knowledge.rules.length;
  const parts = [
    known ? el("dl", { class: "profile" }, ...rows.flatMap(([k, x]) => [el("dt", { textContent: k }), el("dd", { textContent: x })])) : el("p", { class: "empty", textContent: "Nothing known about you yet." }),
    facts.length ? el("ul", { class: "profile-facts" }, ...facts.map((f) => el("li", { textContent: f.text }))) : null,
    p.knowledge.rules.length ? el("ul", { class: "profile-rules" }, ...p.knowledge.rules.map((r) => el("li", { textContent: `Rule: ${r.text}` }))) : null,
  ];
  // replaceChildren prints a null as the text "null": only the parts there are.
  $("profile").replaceChildren(...parts.filter(Boolean));
}

export async function renderPanel(mem, last, { onForget, onResolve }) {
  const now = Date.now();
  // After a read that waits for the store (the profile is read at once, without waiting).
  const all = await mem.list();
  renderProfile(mem.profile({ factLimit: 8 }));
  const memories = all.filter((r) => r.kind !== "message");
  const turns = all.length - memories.length;
  $("count").textContent = `(${memories.length} ${memories.length === 1 ? "memory" : "memories"}, ${turns} ${turns === 1 ? "turn" : "turns"})`;

  $("memories").replaceChildren(
    ...(memories.length
      ? memories.map((r) =>
          el(
            "li",
            { "data-id": r.id, class: "memory" },
            el("span", { class: "text", textContent: r.text }),
            el("span", {
              class: "facts",
              textContent: `${r.kind} · importance ${f2(r.importance)} · weight ${f2(weight(r, now))} · ${ago(r.createdAt, now)} · ${r.source}${r.timesSeen > 1 ? ` · seen ${r.timesSeen}×` : ""}${r.key ? ` · key ${r.key.attribute}` : ""}`,
            }),
            el("button", { class: "forget", textContent: "Forget", onclick: () => onForget(r.id) }),
          ),
        )
      : [el("li", { class: "empty", textContent: "Nothing remembered yet." })]),
  );

  const pending = await mem.list({ pendingReview: true });
  $("reviews").replaceChildren(
    ...(pending.length
      ? pending.map((r) =>
          el(
            "li",
            { "data-id": r.id },
            el("span", { class: "text", textContent: r.text }),
            el("span", { class: "facts", textContent: `conflicts with the current value of “${r.key?.attribute ?? "?"}”` }),
            el("span", {}, el("button", { textContent: "Keep new", onclick: () => onResolve(r.id, "keep-new") }), el("button", { textContent: "Keep old", onclick: () => onResolve(r.id, "keep-old") })),
          ),
        )
      : [el("li", { class: "empty", textContent: "No conflicts waiting." })]),
  );

  const history = (await mem.list({ includeSuperseded: true })).filter((r) => r.kind !== "message" && (r.validTo !== null || r.supersededBy));
  const byId = new Map(all.map((r) => [r.id, r]));
  $("audit").replaceChildren(
    ...(history.length
      ? history.map((r) =>
          el(
            "li",
            { class: "audit" },
            el("span", { class: "text", textContent: r.text }),
            el("span", {
              class: "facts",
              textContent: `valid ${new Date(r.validFrom).toLocaleString()} → ${r.validTo ? new Date(r.validTo).toLocaleString() : "now"}${r.supersededBy ? ` · replaced by “${byId.get(r.supersededBy)?.text ?? r.supersededBy}”` : " · retracted"}`,
            }),
          ),
        )
      : [el("li", { class: "empty", textContent: "No earlier versions." })]),
  );

  const hits = last.recall?.hits ?? [];
  if (!last.recall) $("why").replaceChildren(el("p", { class: "empty", textContent: "Send a message." }));
  else if (!hits.length)
    $("why").replaceChildren(el("p", { class: "empty", textContent: last.recall.route === "small-talk" ? "Small talk: nothing was retrieved." : "Nothing relevant was found." }));
  else {
    const head = el("tr", {}, ...["memory", "vector", "words", "key", "decay", "importance", "weight", "score"].map((h) => el("th", { textContent: h })));
    const rows = hits.map((h) =>
      el(
        "tr",
        { class: "hit" },
        el("td", { textContent: h.record.text }),
        el("td", { textContent: h.parts.vector ? `#${h.parts.vector[0]} (${f2(h.parts.vector[1])})` : "–" }),
        el("td", { textContent: h.parts.lexical ? `#${h.parts.lexical[0]} (${f2(h.parts.lexical[1])})` : "–" }),
        el("td", { textContent: h.parts.key ? `#${h.parts.key}` : "–" }),
        el("td", { textContent: f2(h.parts.decay) }),
        el("td", { textContent: f2(h.parts.importance) }),
        el("td", { textContent: f2(h.parts.weight) }),
        el("td", { textContent: h.score.toFixed(3) }),
      ),
    );
    $("why").replaceChildren(el("table", { class: "why" }, el("thead", {}, head), el("tbody", {}, ...rows)));
  }

  const c = last.context;
  $("ctx-tokens").textContent = c
    ? `${c.tokens} tokens${c.exact ? " (exact o200k)" : " (estimate)"} · ${c.included.length} included · ${c.dropped.length} dropped for budget`
    : "";
}
