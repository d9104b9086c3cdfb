package db

// ClaimDueRemindersSQL is the claim statement of the reminder sweep (queries/reminders.sql), for the benchmark that
// EXPLAINs it (workflows/remind_bench_test.go) to measure its Postgres cost; the sweep itself calls
// ClaimDueReminders.
const ClaimDueRemindersSQL = claimDueReminders
