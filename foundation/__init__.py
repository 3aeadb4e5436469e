"""The bottom layer every package stands on: settings read once, text cleaning, redacting what identifies a person."""
