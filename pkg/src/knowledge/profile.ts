/**
 * The user profile (one per user, derived by the core from their memories whenever it is
 * read, so always current) and the settings the user changes through the API: name,
 * language, timezone, response detail and tone, custom rules, data retention and the
 * share-usage flag. Settings sync with the rest of the user's memory; a retention is
 * applied here on open, on change, and at most hourly when a context is built.
 * @module
 */
import { EngramInputError } from "../errors.js";
import type { Lifetime } from "../store/lifetime.js";
import type { Scope } from "../types.js";

/** A value of the profile and where it came from. */
export interface ProfileValue {
  value: string;
  /** `set` through {@link Engram.updateProfile}, `stated` in what the user said, or `observed` from their turns. */
  from: "set" | "stated" | "observed";
}

/** One custom rule the user asked for. */
export interface ProfileRule {
  id: string;
  text: string;
}

/** A fact of the profile's knowledge base. */
export interface ProfileFact {
  id: string;
  text: string;
  kind: string;
  /** `subject/attribute` of its key. */
  key: string | null;
  importance: number;
  updatedAt: number;
}

/** A user's profile (seed 000's `user_profiles`). */
export interface Profile {
  basic: { name: ProfileValue | null; language: ProfileValue | null; timezone: ProfileValue | null };
  behaviour: {
    /** What they talk about most, by how many of their turns and facts hold the word. */
    topics: { name: string; mentions: number }[];
    detail: ProfileValue | null;
    tone: ProfileValue | null;
    visits: { sessions: number; activeDays: number; firstSeen: number | null; lastSeen: number | null; meanDaysBetween: number | null };
  };
  knowledge: { facts: ProfileFact[]; rules: ProfileRule[] };
  privacy: { retentionDays: number | null; shareUsage: boolean };
}

/** What the user sets; `null` clears a field, an absent field is left as it is. */
export interface ProfileUpdate {
  name?: string | null;
  /** A BCP 47 tag: "en", "zh-CN". */
  language?: string | null;
  /** An IANA zone ("Europe/Madrid"), "UTC" or an offset ("+08:00"). */
  timezone?: string | null;
  detail?: "brief" | "balanced" | "detailed" | null;
  tone?: "casual" | "neutral" | "formal" | null;
  /** Memories older than this many days (1 to 36,500) are removed here, on every device and at the origin. */
  retentionDays?: number | null;
  shareUsage?: boolean;
  /** Custom rules to add ("Always give me metric units"); context carries them whatever the query. */
  addRules?: string[];
  /** Ids of rules to remove. */
  removeRules?: string[];
}

/** The settings after an update. */
export interface ProfileSettings {
  name: string | null;
  language: string | null;
  timezone: string | null;
  detail: string | null;
  tone: string | null;
  retentionDays: number | null;
  shareUsage: boolean;
  rules: ProfileRule[];
}

const HOUR = 3_600_000;
const FIELDS = ["name", "language", "timezone", "detail", "tone", "retentionDays", "shareUsage", "addRules", "removeRules"];

/** The core's `[field, value | null]` changes of a patch (`undefined` is absent, `null` clears). */
function profileChanges(patch: ProfileUpdate): [string, string | null][] {
  if (patch === null || typeof patch !== "object" || Array.isArray(patch)) throw new EngramInputError("INVALID_INPUT", "updateProfile takes an object");
  const out: [string, string | null][] = [];
  for (const [field, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    if (!FIELDS.includes(field)) throw new EngramInputError("INVALID_INPUT", `updateProfile: unknown field ${JSON.stringify(field)} (${FIELDS.join(", ")})`);
    if (field === "addRules" || field === "removeRules") {
      if (!Array.isArray(value) || value.some((v) => typeof v !== "string")) throw new EngramInputError("INVALID_INPUT", `updateProfile: ${field} is an array of strings`);
      for (const v of value as string[]) out.push([field === "addRules" ? "addRule" : "removeRule", v]);
    } else if (field === "shareUsage") {
      if (typeof value !== "boolean") throw new EngramInputError("INVALID_INPUT", "updateProfile: shareUsage is true or false");
      out.push([field, String(value)]);
    } else if (field === "retentionDays") {
      if (value !== null && !Number.isInteger(value)) throw new EngramInputError("INVALID_INPUT", "updateProfile: retentionDays is a whole number of days, or null");
      out.push([field, value === null ? null : String(value)]);
    } else {
      if (value !== null && typeof value !== "string") throw new EngramInputError("INVALID_INPUT", `updateProfile: ${field} is a string, or null`);
      out.push([field, value as string | null]);
    }
  }
  return out;
}

export class Profiles {
  private retainedAt = -Infinity;

  constructor(
    private readonly life: Lifetime,
    private readonly scope: Scope,
  ) {}

  /** The profile now, with at most `factLimit` facts (default 20); reads every memory of the user once. */
  get(factLimit = 20): Profile {
    if (!Number.isInteger(factLimit) || factLimit < 0 || factLimit > 1000) throw new EngramInputError("INVALID_INPUT", "factLimit must be an integer from 0 to 1000");
    return this.life.call(() => this.life.handle.profile(this.scope, factLimit, this.life.now()) as Profile);
  }

  /** Change the settings; nothing is written when a field is refused (a typed `INVALID_INPUT`). */
  async update(patch: ProfileUpdate): Promise<ProfileSettings> {
    const changes = profileChanges(patch);
    return this.life.mutate("profile", async () => {
      const settings = this.life.handle.updateProfile(this.scope, changes, this.life.now()) as ProfileSettings;
      this.retainedAt = this.life.now();
      return { value: settings, ids: [] };
    });
  }

  /** Remove the memories older than the retention now; returns how many. */
  async applyRetention(): Promise<number> {
    this.retainedAt = this.life.now();
    // No write at all without a retention (this runs on every open).
    if (this.life.call(() => this.life.handle.retentionDays(this.scope)) == null) return 0;
    return this.life.mutate("forget", async () => {
      const n = this.life.handle.applyRetention(this.scope, this.life.now()) as number;
      // A change event only when something went (this runs on every open).
      return { value: n, ids: [], events: n ? [{ type: "forget" as const, ids: [] }] : [] };
    });
  }

  /** {@link applyRetention} when it last ran more than an hour ago. */
  async retainIfDue(): Promise<void> {
    if (this.life.now() - this.retainedAt >= HOUR) await this.applyRetention();
  }
}
