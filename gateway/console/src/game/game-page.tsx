import { useState } from 'react';
import { dateTime } from '../ui/format';
import { BossCard, PlayerCard, QuestsCard } from './game-panel';
import { isOff, useAchievements, useLeaderboard, usePlayer } from './game-queries';

const METRICS = { xp: 'XP', tickets_closed: 'Tickets closed', boss_damage: 'Boss damage' } as const;
const PERIODS = { season: 'This season', week: 'This week' } as const;

/** The whole game: the member, the boss and its fighters, every quest, the leaderboards and achievements. */
export default function GamePage() {
  const player = usePlayer();
  const [metric, setMetric] = useState<keyof typeof METRICS>('xp');
  const [period, setPeriod] = useState<keyof typeof PERIODS>('season');
  const board = useLeaderboard(metric, period, 25);
  const achievements = useAchievements();
  const p = player.data;
  if (player.isPending) return <p role="status">Loading the game…</p>;
  if (!p || isOff(p)) {
    return (
      <div>
        <h1>Game</h1>
        <p>The game is not available to you in this team.</p>
      </div>
    );
  }
  if (p.boringMode) {
    return (
      <div>
        <h1>Game</h1>
        <p>Boring mode is on for you: XP, levels, bosses and achievements are hidden (they still accrue).</p>
      </div>
    );
  }
  return (
    <div className="game-page">
      <h1>Game</h1>
      <div className="game-grid">
        <PlayerCard player={p} />
        <BossCard detailed />
        <QuestsCard cadence="daily" />
        <QuestsCard cadence="weekly" />
      </div>
      {board.data && !isOff(board.data) && (
        <section className="card" aria-labelledby="board-title">
          <h2 id="board-title">Leaderboard</h2>
          <div className="inline">
            <label htmlFor="lb-metric">Ranked by</label>
            <select id="lb-metric" value={metric} onChange={(e) => setMetric(e.target.value as keyof typeof METRICS)}>
              {Object.entries(METRICS).map(([k, l]) => (
                <option key={k} value={k}>
                  {l}
                </option>
              ))}
            </select>
            <label htmlFor="lb-period">Period</label>
            <select id="lb-period" value={period} onChange={(e) => setPeriod(e.target.value as keyof typeof PERIODS)}>
              {Object.entries(PERIODS).map(([k, l]) => (
                <option key={k} value={k}>
                  {l}
                </option>
              ))}
            </select>
          </div>
          {board.data.entries.length === 0 && <p className="muted">Nobody is on this board yet.</p>}
          <table hidden={board.data.entries.length === 0}>
            <thead>
              <tr>
                <th scope="col">Rank</th>
                <th scope="col">Member</th>
                <th scope="col">{METRICS[metric]}</th>
              </tr>
            </thead>
            <tbody>
              {board.data.entries.map((e) => (
                <tr key={e.memberId} className={e.memberId === p.memberId ? 'me' : undefined}>
                  <td>{e.rank}</td>
                  <td>{e.name}</td>
                  <td>{e.value.toLocaleString()}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
      {achievements.data && !isOff(achievements.data) && (
        <section className="card" aria-labelledby="ach-title">
          <h2 id="ach-title">Achievements</h2>
          <ul className="achievements">
            {achievements.data.map((a) => (
              <li key={a.key} className={a.unlockedAt ? 'unlocked' : 'locked'}>
                <strong>{a.name}</strong> <span className="muted">{a.description}</span>
                <span className="small">{a.unlockedAt ? `Unlocked ${dateTime(a.unlockedAt)}` : `Locked · ${a.gold} gold`}</span>
              </li>
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}
