// Waits of the job queue contract: poll a condition for a bounded time (failing with what it waited for), and a gate a job waits on.
export async function until(holds: () => boolean | Promise<boolean>, what: string, ms = 15_000): Promise<void> {
  for (const end = Date.now() + ms; !(await holds());) {
    if (Date.now() > end) throw new Error(`waited ${ms} ms for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A promise and the function that settles it, for a job that must wait on the test. */
export function gate(): { opened: Promise<void>; open(): void } {
  let open!: () => void;
  const opened = new Promise<void>((r) => {
    open = r;
  });
  return { opened, open };
}
