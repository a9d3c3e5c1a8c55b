from desktop.gui.app import main

raise SystemExit(main())
