import { secondsUntilRoom } from '../../src/rate-limits/sliding-budget';

const FAILED_LOGINS = { name: 'failed-logins', limit: 10, seconds: 900 };

describe('secondsUntilRoom', () => {
  it('waits for the previous window to weigh little enough when the current one has room', () => {
    // 10 failures just before the window turned: one more fits once 90% of the previous window's weight is left.
    expect(secondsUntilRoom(FAILED_LOGINS, 0, 10, 0.05)).toBe(45);
  });

  it('waits into the next window when the current one alone is full', () => {
    // Half-way through a full window: 450 s to its end, then 10% of the next for its weight to fall to 9.
    expect(secondsUntilRoom(FAILED_LOGINS, 10, 0, 0.5)).toBe(540);
  });

  it('answers at least a second', () => {
    expect(secondsUntilRoom(FAILED_LOGINS, 5, 6, 0.9999)).toBe(1);
  });
});
