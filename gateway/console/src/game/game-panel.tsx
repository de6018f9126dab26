import { Link, useLocation } from 'wouter';
import { messageOf, type BossState, type PlayerStats, type Quest } from '../api/client';
import { useSession } from '../api/session';
import { relative } from '../ui/format';
import { toast } from '../ui/toasts';
import { isOff, useBoss, useClaimQuest, useLeaderboard, usePlayer, useQuests } from './game-queries';

/**
 * The game where agents see it (issue 35 item 4): beside the inbox and every ticket, the member's
 * level, XP, streak and gold, the team's boss (its health falling live as the team closes tickets,
 * shield and enrage shown), today's quests and the top of the leaderboard. A feature the team switched
 * off is not shown; boring mode (the member's choice) hides the whole panel.
 */
export function GamePanel() {
  const player = usePlayer();
  const [location] = useLocation();
  // The game page shows all of it already.
  if (location === '/game' || !player.data || isOff(player.data) || player.data.boringMode) return null;
  return (
    <aside className="game-rail" aria-label="Game">
      <PlayerCard player={player.data} />
      <BossCard />
      <QuestsCard cadence="daily" />
      <LeaderboardCard />
    </aside>
  );
}

/** The member's level, XP bar, streak and gold, in the top bar. */
export function PlayerBadge() {
  const player = usePlayer();
  const p = player.data;
  if (!p || isOff(p) || p.boringMode) return null;
  return (
    <Link href="/game" className="player-badge" title="Your game: level, XP, streak and gold">
      <span className="level">Lv {p.level}</span>
      <span className="xpbar" aria-hidden="true">
        <span style={{ width: `${Math.round((p.xpProgress ?? 0) * 100)}%` }} />
      </span>
      <span className="visually-hidden">{Math.round((p.xpProgress ?? 0) * 100)}% to the next level,</span>
      <span>Streak {p.streaks.current}</span>
      <span>{p.gold} gold</span>
    </Link>
  );
}

export function PlayerCard({ player: p }: { player: PlayerStats }) {
  const pct = Math.round((p.xpProgress ?? 0) * 100);
  return (
    <section className="card player" aria-labelledby="player-title">
      <h2 id="player-title">{p.name}</h2>
      <p className="big">
        Level {p.level} <span className="muted">· {p.season.name}</span>
      </p>
      <div className="meter-label">
        <span id="xp-label">XP</span>
        <span>
          {p.xpInCurrentLevel} / {(p.xpInCurrentLevel ?? 0) + (p.xpToNextLevel ?? 0)}
        </span>
      </div>
      <div className="meter xp" role="progressbar" aria-labelledby="xp-label" aria-valuemin={0} aria-valuemax={100} aria-valuenow={pct} aria-valuetext={`${pct}% to level ${(p.level ?? 0) + 1}`}>
        <span style={{ width: `${pct}%` }} />
      </div>
      <dl className="stats">
        <div>
          <dt>Streak</dt>
          <dd>
            {p.streaks.current} day{p.streaks.current === 1 ? '' : 's'}
          </dd>
        </div>
        <div>
          <dt>Gold</dt>
          <dd>{p.gold}</dd>
        </div>
        <div>
          <dt>Closed</dt>
          <dd>{p.stats.ticketsClosed}</dd>
        </div>
      </dl>
    </section>
  );
}

export function BossCard({ detailed = false }: { detailed?: boolean }) {
  const boss = useBoss();
  if (!boss.data || isOff(boss.data)) return null;
  const state = boss.data as BossState;
  if (!state.active || !state.boss) {
    return (
      <section className="card boss" aria-labelledby="boss-title">
        <h2 id="boss-title">Boss</h2>
        <p className="muted">No boss is up. One appears when customers send many tickets at once.</p>
      </section>
    );
  }
  const b = state.boss;
  const pct = Math.round(b.healthPercent * 100);
  return (
    <section className={`card boss${b.abilities.enrage.active ? ' enraged' : ''}`} aria-labelledby="boss-title">
      <h2 id="boss-title">{b.name}</h2>
      <p className="muted">
        Level {b.level} · {b.difficulty} · phase {b.phase}
      </p>
      <div className="meter-label">
        <span id="boss-health-label">Health</span>
        <span data-testid="boss-health">
          {b.currentHealth.toLocaleString()} / {b.maxHealth.toLocaleString()}
        </span>
      </div>
      <div
        className="meter health"
        role="progressbar"
        aria-labelledby="boss-health-label"
        aria-valuemin={0}
        aria-valuemax={b.maxHealth}
        aria-valuenow={b.currentHealth}
        aria-valuetext={`${pct}% health left`}
      >
        <span style={{ width: `${pct}%` }} />
      </div>
      <ul className="abilities" aria-label="Abilities">
        {b.abilities.shield.active && <li className="ability shield">Shield up · {b.abilities.shield.hitsRemaining} hit{b.abilities.shield.hitsRemaining === 1 ? '' : 's'} to break</li>}
        {b.abilities.enrage.active && <li className="ability enrage">Enraged · heals faster, pays more</li>}
        {b.abilities.heal.perMinute > 0 && <li className="ability">Heals {b.abilities.heal.perMinute}/min without hits</li>}
      </ul>
      <p className="muted">Escapes {relative(b.escapesAt)}. Close customer tickets to hit it.</p>
      {detailed && b.participants.length > 0 && (
        <table>
          <caption>Fighters</caption>
          <thead>
            <tr>
              <th scope="col">Member</th>
              <th scope="col">Damage</th>
              <th scope="col">Hits</th>
            </tr>
          </thead>
          <tbody>
            {b.participants.map((x) => (
              <tr key={x.memberId}>
                <td>{x.name}</td>
                <td>{x.damage}</td>
                <td>{x.hits}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

export function QuestsCard({ cadence }: { cadence?: 'daily' | 'weekly' }) {
  const quests = useQuests();
  const claim = useClaimQuest();
  if (!quests.data || isOff(quests.data)) return null;
  const list = (quests.data as Quest[]).filter((q) => !cadence || q.cadence === cadence);
  const title = cadence === 'daily' ? "Today's quests" : cadence === 'weekly' ? "This week's quests" : 'Quests';
  const id = `quests-${cadence ?? 'all'}`;
  return (
    <section className="card quests" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      <ul>
        {list.map((q) => {
          const pct = Math.round((Math.min(q.progress, q.target) / q.target) * 100);
          return (
            <li key={`${q.key}-${q.periodId}`}>
              <div className="meter-label">
                <span id={`q-${q.key}`}>{q.name}</span>
                <span>
                  {Math.min(q.progress, q.target)} / {q.target}
                </span>
              </div>
              <div className="meter quest" role="progressbar" aria-labelledby={`q-${q.key}`} aria-valuemin={0} aria-valuemax={q.target} aria-valuenow={Math.min(q.progress, q.target)}>
                <span style={{ width: `${pct}%` }} />
              </div>
              {q.completed && !q.claimed && (
                <button
                  type="button"
                  className="secondary small"
                  disabled={claim.isPending}
                  onClick={() =>
                    claim.mutate(q.key, {
                      onSuccess: () => toast(`Claimed ${q.rewards.xp} XP and ${q.rewards.gold} gold.`, 'celebrate'),
                      onError: (err) => toast(messageOf(err), 'error'),
                    })
                  }
                >
                  Claim {q.rewards.xp} XP
                </button>
              )}
              {q.claimed && <span className="muted small">Claimed</span>}
            </li>
          );
        })}
      </ul>
    </section>
  );
}

function LeaderboardCard() {
  const board = useLeaderboard('xp', 'season', 5);
  const { memberId } = useSession();
  if (!board.data || isOff(board.data)) return null;
  return (
    <section className="card leaderboard" aria-labelledby="lb-title">
      <h2 id="lb-title">Leaderboard</h2>
      {board.data.entries.length === 0 ? (
        <p className="muted">Nobody has XP this season yet.</p>
      ) : (
        <ol>
          {board.data.entries.map((e) => (
            <li key={e.memberId} className={e.memberId === memberId ? 'me' : undefined}>
              <span className="rank">{e.rank}.</span> {e.name} <span className="muted">{e.value.toLocaleString()} XP</span>
            </li>
          ))}
        </ol>
      )}
      <Link href="/game">The whole game</Link>
    </section>
  );
}
