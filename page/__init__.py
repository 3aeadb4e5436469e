"""The passengers' page behind `app.py`: the conversation controller and the page's wording."""
