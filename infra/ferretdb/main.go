// Command ferretdb-dev runs FerretDB v1 embedded, for the service's embedded default: PostgreSQL or SQLite storage.
package main

import (
	"context"
	"flag"
	"log"
	"os"
	"os/signal"
	"syscall"

	"github.com/FerretDB/FerretDB/ferretdb"
)

func main() {
	addr := flag.String("listen-addr", "127.0.0.1:27017", "TCP address to listen on")
	dir := flag.String("dir", ".data/ferretdb", "directory for the SQLite databases (SQLite storage)")
	pg := flag.String("postgresql-url", "", "PostgreSQL URL; when set, FerretDB stores in PostgreSQL instead of SQLite")
	flag.Parse()

	cfg := &ferretdb.Config{Listener: ferretdb.ListenerConfig{TCP: *addr}}
	if *pg != "" {
		cfg.Handler, cfg.PostgreSQLURL = "postgresql", *pg
	} else {
		if err := os.MkdirAll(*dir, 0o755); err != nil {
			log.Fatal(err)
		}
		cfg.Handler, cfg.SQLiteURL = "sqlite", "file:"+*dir+"/"
	}
	f, err := ferretdb.New(cfg)
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	log.Println("FERRETDB_READY", f.MongoDBURI())
	f.Run(ctx)
}
