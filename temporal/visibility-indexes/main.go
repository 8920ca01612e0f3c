// Command visibility-indexes lists or drops indexes of the Temporal dev server's visibility
// table (executions_visibility) in its SQLite database, with the SQLite build the dev server
// itself runs (modernc.org/sqlite at the Temporal CLI's version). Herald drops the indexes that
// serve no query of its own or of the Temporal UI; see temporal/visibility-indexes.ts.
//
//	visibility-indexes <database> list
//	visibility-indexes <database> drop <index>...
//
// It never creates a database, and touches only indexes of executions_visibility. Waits up to
// 10 seconds for a lock another connection holds.
package main

import (
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"regexp"

	_ "modernc.org/sqlite"
)

const table = "executions_visibility"

var indexName = regexp.MustCompile(`^[A-Za-z0-9_]+$`)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "visibility-indexes:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) < 2 || (args[1] != "list" && args[1] != "drop") {
		return fmt.Errorf("usage: visibility-indexes <database> list | drop <index>...")
	}
	file, command, names := args[0], args[1], args[2:]
	for _, name := range names {
		if !indexName.MatchString(name) {
			return fmt.Errorf("not an index name: %q", name)
		}
	}
	if _, err := os.Stat(file); err != nil {
		return err
	}
	// mode=rw: an absent file is an error, never a new database.
	dsn := (&url.URL{Scheme: "file", Path: file, RawQuery: "mode=rw&_pragma=busy_timeout(10000)"}).String()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if command == "list" {
		existing, err := indexes(db)
		if err != nil {
			return err
		}
		for _, name := range existing {
			fmt.Println(name)
		}
		return nil
	}
	return drop(db, names)
}

// indexes answers the names of the table's own indexes (not its primary key's).
func indexes(db *sql.DB) ([]string, error) {
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

// drop drops those of names that are indexes of the table, in one transaction, and prints each.
func drop(db *sql.DB, names []string) error {
	existing, err := indexes(db)
	if err != nil {
		return err
	}
	present := map[string]bool{}
	for _, name := range existing {
		present[name] = true
	}
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var dropped []string
	for _, name := range names {
		if !present[name] {
			continue
		}
		if _, err := tx.Exec(`DROP INDEX "` + name + `"`); err != nil {
			return err
		}
		dropped = append(dropped, name)
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	for _, name := range dropped {
		fmt.Println(name)
	}
	return nil
}
