// Command visibility-indexes lists, drops and creates indexes of the Temporal dev server's
// visibility table (executions_visibility) in its SQLite database, with the SQLite build the dev
// server itself runs (modernc.org/sqlite at the Temporal CLI's version). Herald keeps only the
// indexes that serve a query; see temporal/visibility-indexes.ts. Run it only while no server
// has the database open: a server's transactions read before they write, and SQLite fails such
// a transaction at once, without waiting, when another connection wrote in between.
//
//	visibility-indexes <database> list
//	visibility-indexes <database> apply [drop:<index>]... [create:<column>]...
//
// `create:Int01` creates the index Temporal's schema gives that pre-allocated custom search
// attribute column (by_int_01), for a column a search attribute was mapped to after its index
// was dropped. `apply` changes nothing unless all of it succeeds (one transaction), prints what
// it dropped and created, never creates a database, and touches only indexes of
// executions_visibility. It waits up to 10 seconds for a lock another connection holds.
package main

import (
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	_ "modernc.org/sqlite"
)

const table = "executions_visibility"

var (
	indexName = regexp.MustCompile(`^[A-Za-z0-9_]+$`)
	// The pre-allocated custom search attribute columns that Temporal's schema indexes.
	slotColumn = regexp.MustCompile(`^(Bool|Datetime|Double|Int|Keyword)(0[1-9]|10)$`)
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "visibility-indexes:", err)
		os.Exit(1)
	}
}

// change is what `apply` is asked: indexes to drop and slot columns to index.
type change struct {
	drop   []string
	create []string
}

func parse(args []string) (change, error) {
	var c change
	for _, arg := range args {
		switch {
		case strings.HasPrefix(arg, "drop:") && indexName.MatchString(arg[len("drop:"):]):
			c.drop = append(c.drop, arg[len("drop:"):])
		case strings.HasPrefix(arg, "create:") && slotColumn.MatchString(arg[len("create:"):]):
			c.create = append(c.create, arg[len("create:"):])
		default:
			return c, fmt.Errorf("not drop:<index> or create:<custom search attribute column>: %q", arg)
		}
	}
	return c, nil
}

func run(args []string) error {
	if len(args) < 2 || (args[1] != "list" && args[1] != "apply") || (args[1] == "list" && len(args) > 2) {
		return fmt.Errorf("usage: visibility-indexes <database> list | apply [drop:<index>]... [create:<column>]...")
	}
	c, err := parse(args[2:])
	if err != nil {
		return err
	}
	file, err := filepath.Abs(args[0])
	if err != nil {
		return err
	}
	if _, err := os.Stat(file); err != nil {
		return err
	}
	// mode=rw: an absent file is an error, never a new database. BEGIN IMMEDIATE for apply.
	dsn := (&url.URL{Scheme: "file", Path: file, RawQuery: "mode=rw&_txlock=immediate&_pragma=busy_timeout(10000)"}).String()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if args[1] == "list" {
		names, err := indexes(db)
		if err != nil {
			return err
		}
		for _, name := range names {
			fmt.Println(name)
		}
		return nil
	}
	return apply(db, c)
}

type querier interface {
	Query(query string, args ...any) (*sql.Rows, error)
}

// indexes answers the names of the table's own indexes (not its primary key's).
func indexes(db querier) ([]string, error) {
	rows, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL ORDER BY name`, table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		names = append(names, name)
	}
	return names, rows.Err()
}

// slotIndex is the name Temporal's schema gives the index of a slot column: Keyword04 -> by_keyword_04.
func slotIndex(column string) string {
	parts := slotColumn.FindStringSubmatch(column)
	return "by_" + strings.ToLower(parts[1]) + "_" + parts[2]
}

// apply drops and creates in one transaction, which holds the write lock from its start
// (_txlock=immediate) so that the indexes it reads are the ones it changes; prints each change.
func apply(db *sql.DB, c change) error {
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	existing, err := indexes(tx)
	if err != nil {
		return err
	}
	present := map[string]bool{}
	for _, name := range existing {
		present[name] = true
	}
	var done []string
	for _, name := range c.drop {
		if !present[name] {
			continue
		}
		if _, err := tx.Exec(`DROP INDEX "` + name + `"`); err != nil {
			return err
		}
		present[name] = false
		done = append(done, "dropped "+name)
	}
	for _, column := range c.create {
		name := slotIndex(column)
		if present[name] {
			continue
		}
		statement := `CREATE INDEX "` + name + `" ON ` + table + ` (namespace_id, ` + column +
			`, (COALESCE(close_time, '9999-12-31 23:59:59+00:00')) DESC, start_time DESC, run_id)`
		if _, err := tx.Exec(statement); err != nil {
			return err
		}
		present[name] = true
		done = append(done, "created "+name)
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	for _, line := range done {
		fmt.Println(line)
	}
	return nil
}
