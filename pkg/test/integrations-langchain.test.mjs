// The LangChain.js integration with the real @langchain/core (pinned): a runnable chain with
// message history against its FakeListChatModel, over a real Engram on NodeFileStorage.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";
import { RunnablePassthrough, RunnableWithMessageHistory } from "@langchain/core/runnables";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { Engram, NodeFileStorage } from "../dist/entrypoints/node.js";
import { EngramChatMessageHistory, EngramRetriever, engramContext } from "../dist/integrations/langchain.js";

async function open(dir, user = "zhang-san") {
  const mem = await Engram.open({ user, storage: new NodeFileStorage(dir) });
  await mem.tokenizerReady();
  return mem;
}

function chain(mem, responses) {
  const model = new FakeListChatModel({ responses });
  const prompt = ChatPromptTemplate.fromMessages([["system", "You are a travel assistant.\n{memory}"], new MessagesPlaceholder("history"), ["human", "{question}"]]);
  return new RunnableWithMessageHistory({
    runnable: RunnablePassthrough.assign({ memory: engramContext(mem, { input: "question", budget: 200 }) }).pipe(prompt).pipe(model),
    getMessageHistory: (sessionId) => new EngramChatMessageHistory({ memory: mem, session: sessionId }),
    inputMessagesKey: "question",
    historyMessagesKey: "history",
  });
}

/** Invoke, capturing the messages the chat model was given. */
async function invoke(c, question, sessionId) {
  const seen = [];
  const out = await c.invoke({ question }, { configurable: { sessionId }, callbacks: [{ handleChatModelStart: (_llm, messages) => seen.push(messages[0]) }] });
  return { out, seen: seen[0] };
}

test("a chain with EngramChatMessageHistory keeps the conversation, learns facts from it, and gives the model its memory", async () => {
  const dir = await mkdtemp(join(tmpdir(), "engram-lc-"));
  const mem = await open(dir);
  const c = chain(mem, ["Noted!", "Try the West Lake trail."]);
  const first = await invoke(c, "I live in Hangzhou and I prefer short answers.", "chat-1");
  assert.equal(first.out.content, "Noted!");
  assert.deepEqual(first.seen.map((m) => m.getType()), ["system", "human"], "no history yet");

  const second = await invoke(c, "Where should I go this weekend?", "chat-1");
  assert.equal(second.out.content, "Try the West Lake trail.");
  assert.deepEqual(second.seen.map((m) => m.getType()), ["system", "human", "ai", "human"]);
  assert.deepEqual(second.seen.slice(1).map((m) => m.content), ["I live in Hangzhou and I prefer short answers.", "Noted!", "Where should I go this weekend?"]);
  const system = second.seen[0].content;
  assert.match(system, /^You are a travel assistant\.\n<memory-data trust="untrusted">/);
  assert.ok(system.includes("User lives in Hangzhou") && system.includes("User prefers short answers"), system);
  assert.ok(mem.countTokens(system.slice(system.indexOf("<memory-data"))).tokens <= 200);
  assert.ok(!system.includes("Noted!"), "recent turns come from the history, not twice through the context");

  const facts = (await mem.list({ kinds: ["fact", "preference"] })).map((r) => r.text).sort();
  assert.deepEqual(facts, ["User lives in Hangzhou", "User prefers short answers"]);
  const history = await new EngramChatMessageHistory({ memory: mem, session: "chat-1" }).getMessages();
  assert.deepEqual(history.map((m) => [m.getType(), m.content]), [
    ["human", "I live in Hangzhou and I prefer short answers."],
    ["ai", "Noted!"],
    ["human", "Where should I go this weekend?"],
    ["ai", "Try the West Lake trail."],
  ]);
  await mem.close();

  const again = await open(dir);
  const reopened = await new EngramChatMessageHistory({ memory: again, session: "chat-1" }).getMessages();
  assert.equal(reopened.length, 4, "the history is on disk");
  assert.deepEqual(await new EngramChatMessageHistory({ memory: again, session: "chat-2" }).getMessages(), [], "sessions are separate");
  await again.close();
});

test("the history returns the engine's window of recent turns; clear() forgets the turns but keeps what was learned", async () => {
  const dir = await mkdtemp(join(tmpdir(), "engram-lc-"));
  const mem = await open(dir);
  const h = new EngramChatMessageHistory({ memory: mem, session: "s" });
  await h.addUserMessage("My name is Li Wei.");
  await h.addAIMessage("Nice to meet you, Li Wei.");
  for (let i = 0; i < 10; i++) await h.addMessages([new (await import("@langchain/core/messages")).HumanMessage(`Question number ${i}?`)]);
  const window = await h.getMessages();
  assert.equal(window.length, 12);
  assert.equal(window.at(-1).content, "Question number 9?");
  assert.equal((await new EngramChatMessageHistory({ memory: mem, session: "s", window: 3 }).getMessages()).length, 3);
  await h.clear();
  assert.deepEqual(await h.getMessages(), []);
  assert.deepEqual((await mem.list({ kinds: ["fact"] })).map((r) => r.text), ["User's name is Li Wei"]);
  await mem.close();
});

test("EngramRetriever returns recalled memories as documents with why they were recalled", async () => {
  const dir = await mkdtemp(join(tmpdir(), "engram-lc-"));
  const mem = await open(dir);
  await mem.rememberMany(["Keeps bees on the roof of the garage", "Is training for the Berlin marathon", "Dislikes cilantro"]);
  const docs = await new EngramRetriever({ memory: mem, k: 2 }).invoke("how is the marathon training going");
  assert.ok(docs.length >= 1 && docs.length <= 2);
  assert.equal(docs[0].pageContent, "Is training for the Berlin marathon");
  assert.equal(typeof docs[0].metadata.parts.fused, "number");
  assert.equal(docs[0].metadata.id, docs[0].id);
  await mem.close();
});
