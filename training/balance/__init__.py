"""Balance studies of stored games (`python -m training.balance`): the study and its report
(`study`), the statistics (`stats`) and the compiled replay that collects them (`game_stats`)."""
