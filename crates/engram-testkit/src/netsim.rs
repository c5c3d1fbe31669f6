//! A seeded simulation of sync: N replicas and an origin over a network that drops,
//! duplicates, delays and reorders messages. Replicas write at random (memories,
//! supersessions, deletes, turns, session state, graph edges, forgetting a user); they push
//! their ops until acknowledged and pull the origin's log after a cursor. After the
//! workload stops and the network heals, every replica and the origin must hold the same
//! state ([`Engram::canonical_state`]).
//!
//! [`Sim::consolidating`] runs the same workload on replicas that also consolidate: old
//! turns fold into summaries, ending a session writes its episode, learns patterns from a
//! request repeated across sessions and compacts the episodes (at once: no minimum age).
//!
//! The origin here is the same engine plus an append-only log — what `engram-origin` keeps
//! in MongoDB — so the simulation checks the protocol, not the server.

use std::collections::VecDeque;

use engram_core::consolidate::{episode_id, Compaction, Compression, Consolidation, Episodes, Folded, Patterns};
use engram_core::knowledge::graph::{EntityRef, Relation};
use engram_core::{Engram, Config, MemoryInput, Op, Scope, Turn};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// Network misbehaviour, as probabilities per message.
#[derive(Debug, Clone, Copy)]
pub struct Faults {
    pub drop: f64,
    pub duplicate: f64,
    /// Messages are delivered in random order from everything in flight, so reordering is
    /// always on; `delay` is the chance a message is held back when picked.
    pub delay: f64,
}

enum Message {
    Push { from: usize, batch: u64, ops: Vec<Op> },
    Ack { to: usize, batch: u64 },
    Pull { from: usize, after: usize },
    Changes { to: usize, ops: Vec<Op>, cursor: usize },
}

struct Replica {
    engine: Engram,
    /// Batches pushed and not yet acknowledged, resent until they are.
    outbox: Vec<(u64, Vec<Op>)>,
    next_batch: u64,
    cursor: usize,
    clock_skew: i64,
}

/// The simulated system.
pub struct Sim {
    rng: SmallRng,
    faults: Faults,
    replicas: Vec<Replica>,
    origin: Engram,
    log: Vec<Op>,
    net: VecDeque<Message>,
    now: i64,
    users: Vec<Scope>,
    /// Replicas consolidate, and some turn writes end their session instead.
    consolidating: bool,
    /// Counters for the report.
    pub stats: Stats,
}

/// What happened during a run.
#[derive(Debug, Default, Clone, Copy)]
pub struct Stats {
    pub writes: usize,
    pub delivered: usize,
    pub dropped: usize,
    pub duplicated: usize,
    pub forgets: usize,
    /// Writes after which a summary or an episode changed.
    pub consolidations: usize,
}

impl Sim {
    /// `replicas` devices sharing two users' memories (every device writes for both).
    pub fn new(seed: u64, replicas: usize, faults: Faults) -> Self {
        Self::build(seed, replicas, faults, None)
    }

    /// The same, on replicas that consolidate with a 3-turn window: compression past 8
    /// tokens (folded turns kept on even seeds, removed on odd ones) and episodes; one turn
    /// write in five ends its session instead.
    pub fn consolidating(seed: u64, replicas: usize, faults: Faults) -> Self {
        let folded = if seed.is_multiple_of(2) { Folded::Keep } else { Folded::Remove };
        let settings = Consolidation {
            compression: Some(Compression { threshold_tokens: 8, summary_tokens: 40, folded, ..Compression::default() }),
            episodes: Some(Episodes { budget_tokens: 40, ..Episodes::default() }),
            patterns: Some(Patterns { min_sessions: 2 }),
            compaction: Some(Compaction { min_age_ms: 0, budget_tokens: 60, folded }),
        };
        Self::build(seed, replicas, faults, Some(settings))
    }

    fn build(seed: u64, replicas: usize, faults: Faults, consolidation: Option<Consolidation>) -> Self {
        let config = if consolidation.is_some() { Config { recent_turns: 3, ..Config::default() } } else { Config::default() };
        let mut rng = SmallRng::seed_from_u64(seed);
        let replicas = (0..replicas)
            .map(|i| Replica {
                engine: {
                    let mut e = Engram::new(config.clone(), 100 + i as u64);
                    e.set_consolidation(consolidation.clone().unwrap_or_default()).unwrap_or_else(|e| panic!("{e}"));
                    e
                },
                outbox: Vec::new(),
                next_batch: 0,
                cursor: 0,
                clock_skew: rng.gen_range(-5_000..5_000),
            })
            .collect();
        Sim {
            rng,
            faults,
            replicas,
            origin: Engram::new(Config::default(), 1),
            log: Vec::new(),
            net: VecDeque::new(),
            now: 1_764_000_000_000,
            users: vec![Scope::user("t", "alice"), Scope::user("t", "bob")],
            consolidating: consolidation.is_some(),
            stats: Stats::default(),
        }
    }

    /// Run `steps` random steps (writes, pushes, pulls, deliveries).
    pub fn run(&mut self, steps: usize) {
        for _ in 0..steps {
            self.now += self.rng.gen_range(0..2_000);
            match self.rng.gen_range(0..10) {
                0..=3 => self.write(),
                4 => self.push(),
                5 => self.pull(),
                _ => self.deliver(),
            }
        }
    }

    /// Stop writing, heal the network, and sync until nothing is in flight, every outbox is
    /// acknowledged and every replica has pulled the whole log.
    pub fn settle(&mut self) {
        self.faults = Faults { drop: 0.0, duplicate: 0.0, delay: 0.0 };
        for _ in 0..10_000 {
            for r in 0..self.replicas.len() {
                self.push_from(r);
                self.net.push_back(Message::Pull { from: r, after: self.replicas[r].cursor });
            }
            while !self.net.is_empty() {
                self.deliver();
            }
            let done = self.replicas.iter().all(|r| r.outbox.is_empty() && r.engine.pending_len() == 0 && r.cursor == self.log.len());
            if done {
                return;
            }
        }
        panic!("sync did not settle");
    }

    /// Every replica's canonical state, then the origin's.
    pub fn states(&self) -> Vec<Vec<u8>> {
        let mut out: Vec<Vec<u8>> = self.replicas.iter().map(|r| r.engine.canonical_state().unwrap_or_else(|e| panic!("{e}"))).collect();
        out.push(self.origin.canonical_state().unwrap_or_else(|e| panic!("{e}")));
        out
    }

    /// Every replica's engine, then the origin's.
    pub fn engines(&self) -> impl Iterator<Item = &Engram> {
        self.replicas.iter().map(|r| &r.engine).chain(std::iter::once(&self.origin))
    }

    /// A readable dump of replica `i`'s records per user (the origin is `replicas.len()`),
    /// for failure messages.
    pub fn dump(&self, i: usize) -> String {
        self.replicas.get(i).map_or(&self.origin, |r| &r.engine).canonical_state_text()
    }

    fn write(&mut self) {
        let r = self.rng.gen_range(0..self.replicas.len());
        let user = self.users[self.rng.gen_range(0..self.users.len())].clone();
        let now = self.now + self.replicas[r].clock_skew;
        let n = self.rng.gen_range(0..40u32);
        let e = &mut self.replicas[r].engine;
        let ok = match self.rng.gen_range(0..100) {
            0..=29 => e.remember(&user, MemoryInput::fact(format!("note {n} about topic {}", n % 7)), now).is_ok(),
            30..=44 => e.remember(&user, MemoryInput::fact(format!("lives in city {n}")).with_key("user", "city"), now).is_ok(),
            45..=54 => {
                let ids: Vec<String> = e.list(&user, &Default::default(), now).unwrap_or_default().into_iter().map(|m| m.id).collect();
                match ids.get(n as usize % ids.len().max(1)) {
                    Some(id) => e.forget(&user, id, now).is_ok(),
                    None => false,
                }
            }
            55..=69 if self.consolidating && n % 5 == 0 => {
                let s = user.clone().with_session(format!("s{}", n % 3));
                let before = e.get(&s, &episode_id(&s)).ok().map(|r| r.stamp);
                let ok = e.end_session(&s, now).is_ok();
                self.stats.consolidations += usize::from(e.get(&s, &episode_id(&s)).ok().map(|r| r.stamp) != before);
                ok
            }
            55..=69 => {
                let s = user.clone().with_session(format!("s{}", n % 3));
                let before = e.summary(&s).ok().flatten();
                // Consolidating replicas hear a repeated request too: a signal for patterns.
                let text = if self.consolidating && n % 4 == 0 { format!("turn {n} on replica {r}: write it in Go") } else { format!("turn {n} on replica {r}") };
                let ok = e.append_turn(&s, Turn::user(text), now).is_ok();
                self.stats.consolidations += usize::from(e.summary(&s).ok().flatten() != before);
                ok
            }
            70..=82 => {
                let s = user.clone().with_session(format!("s{}", n % 3));
                e.session_set(&s, &format!("k{}", n % 4), &format!("v{n}"), now).is_ok()
            }
            83..=96 => {
                let rel = Relation::new(EntityRef::new(&format!("person {}", n % 5), "person"), "works_on", EntityRef::new(&format!("task {}", n % 4), "task"));
                let rel = if n % 3 == 0 { rel.removed() } else { rel };
                e.relate(&user, rel, now).is_ok()
            }
            _ => {
                self.stats.forgets += 1;
                e.forget_user(&user, now).is_ok()
            }
        };
        self.stats.writes += usize::from(ok);
    }

    fn push(&mut self) {
        let r = self.rng.gen_range(0..self.replicas.len());
        self.push_from(r);
    }

    fn push_from(&mut self, r: usize) {
        let rep = &mut self.replicas[r];
        let fresh = rep.engine.take_pending();
        if !fresh.is_empty() {
            rep.outbox.push((rep.next_batch, fresh));
            rep.next_batch += 1;
        }
        for (batch, ops) in rep.outbox.clone() {
            self.net.push_back(Message::Push { from: r, batch, ops });
        }
    }

    fn pull(&mut self) {
        let r = self.rng.gen_range(0..self.replicas.len());
        self.net.push_back(Message::Pull { from: r, after: self.replicas[r].cursor });
    }

    fn deliver(&mut self) {
        if self.net.is_empty() {
            return;
        }
        let i = self.rng.gen_range(0..self.net.len());
        if self.rng.gen_bool(self.faults.delay) {
            return; // held back: it stays in flight
        }
        let Some(msg) = self.net.remove(i) else { return };
        if self.rng.gen_bool(self.faults.drop) {
            self.stats.dropped += 1;
            return;
        }
        if self.rng.gen_bool(self.faults.duplicate) {
            self.stats.duplicated += 1;
            self.net.push_back(clone(&msg));
        }
        self.stats.delivered += 1;
        match msg {
            Message::Push { from, batch, ops } => {
                // The origin applies (idempotently) and appends; a duplicate push appends
                // again, which is harmless because applying is idempotent.
                for op in ops {
                    self.origin.apply(op.clone()).unwrap_or_else(|e| panic!("origin apply: {e}"));
                    self.log.push(op);
                }
                self.net.push_back(Message::Ack { to: from, batch });
            }
            Message::Ack { to, batch } => self.replicas[to].outbox.retain(|(b, _)| *b != batch),
            Message::Pull { from, after } => {
                let ops = self.log[after.min(self.log.len())..].to_vec();
                self.net.push_back(Message::Changes { to: from, ops, cursor: self.log.len() });
            }
            Message::Changes { to, ops, cursor } => {
                let rep = &mut self.replicas[to];
                rep.engine.apply_ops(ops).unwrap_or_else(|e| panic!("replica apply: {e}"));
                rep.cursor = rep.cursor.max(cursor);
            }
        }
    }
}

fn clone(m: &Message) -> Message {
    match m {
        Message::Push { from, batch, ops } => Message::Push { from: *from, batch: *batch, ops: ops.clone() },
        Message::Ack { to, batch } => Message::Ack { to: *to, batch: *batch },
        Message::Pull { from, after } => Message::Pull { from: *from, after: *after },
        Message::Changes { to, ops, cursor } => Message::Changes { to: *to, ops: ops.clone(), cursor: *cursor },
    }
}
